"""Fixtures for the eval harness tests: the animals docs tree (eval_support), built once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_support import DATA, write_tree

from docs_mcp.indexing.pipeline import BuildOptions, build


@pytest.fixture(scope="session")
def animals_docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = json.loads((DATA / "animals.json").read_text(encoding="utf-8"))
    return write_tree(files, tmp_path_factory.mktemp("animals") / "docs")


@pytest.fixture(scope="session")
def animals_index(animals_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("animals-index") / "out"
    build(BuildOptions(docs_dir=animals_docs, out=out))
    return out
