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
    out, cache = tmp_path / "out", tmp_path / "cache"

    def run() -> None:
        build(BuildOptions(docs_dir=corpora_docs, out=out, cache_dir=cache))

    def setup() -> None:  # a full build each round: nothing to reuse
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)

    benchmark.pedantic(run, rounds=2, iterations=1, setup=setup)
    markdown = sum(p.stat().st_size for p in corpora_docs.rglob("*.md"))
    index = _size(out)
    benchmark.extra_info.update(markdown_bytes=markdown, index_bytes=index, ratio=round(index / markdown, 2))
    print(
        f"\nindex {index / 2**20:.1f} MiB for {markdown / 2**20:.1f} MiB markdown ({index / markdown:.2f}x)"
    )


def _sizes_by_part(out: Path) -> dict[str, int]:
    """Bytes of an index folder by what they are: row data, each index, version manifests, the rest."""
    parts: dict[str, int] = {}
    for path in out.rglob("*"):
        if not path.is_file() or ".docs-mcp-cache" in path.parts:
            continue
        relative = path.relative_to(out).parts
        if "_indices" in relative:
            part = "index:" + relative[relative.index("_indices") + 1][:8]  # per index (uuid prefix)
        elif "data" in relative:
            part = "data"
        elif "_versions" in relative or "_transactions" in relative:
            part = "versions"
        else:
            part = "other"
        parts[part] = parts.get(part, 0) + path.stat().st_size
    return parts


@pytest.mark.timeout(900)
def test_index_size_is_stable_across_identical_builds(
    benchmark: BenchmarkFixture, corpora_docs: Path, tmp_path: Path
) -> None:
    """Issue 23: three full-text builds of the same SDK corpora, each into a fresh OUT; how far their
    folder sizes spread (percent of the smallest), and which part of the folder the spread is in."""
    totals: list[int] = []
    data: list[int] = []
    indexes: list[int] = []

    def run() -> None:
        out = tmp_path / f"out-{len(totals)}"
        build(BuildOptions(docs_dir=corpora_docs, out=out, cache_dir=tmp_path / f"cache-{len(totals)}"))
        parts = _sizes_by_part(out)
        totals.append(sum(parts.values()))
        data.append(parts.get("data", 0))
        indexes.append(sum(size for name, size in parts.items() if name.startswith("index:")))
        shutil.rmtree(out)

    benchmark.pedantic(run, rounds=3, iterations=1)

    def spread(sizes: list[int]) -> float:
        return round(100 * (max(sizes) - min(sizes)) / min(sizes), 2) if min(sizes) else 0.0

    benchmark.extra_info.update(
        total_bytes=totals,
        spread_pct=spread(totals),
        data_spread_pct=spread(data),
        index_spread_pct=spread(indexes),
    )
    print(f"\n{benchmark.extra_info}")
