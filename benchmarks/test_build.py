"""Build time and index size of the real SDK corpora (dub + mistral), full text only."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from docs_mcp.indexing.pipeline import BuildOptions, build


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


@pytest.mark.timeout(600)
def test_build_corpora_full_text(benchmark: BenchmarkFixture, corpora_docs: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"

    def run() -> None:
        build(BuildOptions(docs_dir=corpora_docs, out=out))

    benchmark.pedantic(run, rounds=2, iterations=1, setup=lambda: shutil.rmtree(out, ignore_errors=True))
    markdown = sum(p.stat().st_size for p in corpora_docs.rglob("*.md"))
    index = _size(out)
    benchmark.extra_info.update(markdown_bytes=markdown, index_bytes=index, ratio=round(index / markdown, 2))
    print(
        f"\nindex {index / 2**20:.1f} MiB for {markdown / 2**20:.1f} MiB markdown ({index / markdown:.2f}x)"
    )
