"""Fixtures for artifact tests: small real indexes (the registries are in tests/conftest.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from docs_mcp.indexing.pipeline import BuildOptions, build

EXTRA_PAGE = """# Zebra crossings

The quokka endpoint reports zebra crossings for a city. Call it with a city code.
"""


@pytest.fixture(scope="session")
def index_a(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    """examples/docs built full text."""
    out = tmp_path_factory.mktemp("index-a") / "index"
    build(BuildOptions(docs_dir=examples_docs, out=out))
    return out


@pytest.fixture(scope="session")
def docs_b(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    """examples/docs plus one page with words no other page has (``quokka``)."""
    docs = tmp_path_factory.mktemp("docs-b") / "docs"
    shutil.copytree(examples_docs, docs)
    (docs / "guides" / "zebra.md").write_text(EXTRA_PAGE)
    return docs


@pytest.fixture(scope="session")
def index_b(tmp_path_factory: pytest.TempPathFactory, docs_b: Path) -> Path:
    """A different index: examples/docs plus the quokka page."""
    out = tmp_path_factory.mktemp("index-b") / "index"
    build(BuildOptions(docs_dir=docs_b, out=out))
    return out
