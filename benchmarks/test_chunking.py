"""Chunking speed on the dub + mistral SDK docs (3,958 markdown files, 16 MiB).

``test_chunk_corpora`` chunks every file (parse, hints, ids, text) with the default strategy;
``test_chunk_largest_file`` chunks the biggest single README. Files are read before timing.
Run: ``.venv/bin/python -m pytest benchmarks/test_chunking.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def corpora_files() -> list[tuple[str, str]]:
    configured = os.environ.get("DOCS_MCP_EVALDATA")
    corpora = (Path(configured) if configured else REPO_ROOT.parent / "shared" / "evaldata") / "corpora"
    if not corpora.is_dir():
        pytest.fail(f"evaldata corpora not found at {corpora}; set DOCS_MCP_EVALDATA")
    return [
        (file.relative_to(corpora).as_posix(), file.read_text(encoding="utf-8"))
        for file in sorted(corpora.rglob("*.md"))
    ]


def test_chunk_corpora(benchmark: Any, corpora_files: list[tuple[str, str]]) -> None:
    settings = FileSettings()

    def run() -> int:
        return sum(len(chunk_file(source, path, settings).chunks) for path, source in corpora_files)

    chunks = benchmark.pedantic(run, rounds=2, iterations=1)
    benchmark.extra_info.update({"files": len(corpora_files), "chunks": chunks})


def test_chunk_largest_file(benchmark: Any, corpora_files: list[tuple[str, str]]) -> None:
    path, source = max(corpora_files, key=lambda item: len(item[1]))
    benchmark.extra_info.update({"path": path, "characters": len(source)})
    benchmark.pedantic(lambda: chunk_file(source, path, FileSettings()), rounds=5, iterations=1)
