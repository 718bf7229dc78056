"""Incremental rebuild: claude-docs built with the local model, then rebuilt after one edited file.

The embedding cache (in the build's cache folder, ``indexing.build_cache``) keeps every unchanged
chunk's vector, so a rebuild embeds only the edited section; the benchmark times the rebuild (each
round edits another page) and records the first, full build's time, the embedding throughput of that
build, and how many chunks the last rebuild embedded. Also the size of the index with vectors. Run:
``.venv/bin/python -m pytest benchmarks/test_rebuild.py --benchmark-only -s``.
"""

from __future__ import annotations

import shutil
from itertools import count
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from docs_mcp.indexing.pipeline import BuildOptions, BuildResult, build

pytestmark = pytest.mark.timeout(1800)


def _size(path: Path, pattern: str = "*") -> int:
    return sum(p.stat().st_size for p in path.rglob(pattern) if p.is_file())


def test_rebuild_after_one_edited_file(
    benchmark: BenchmarkFixture, local_model: None, claude_docs: Path, tmp_path: Path
) -> None:
    docs = shutil.copytree(claude_docs, tmp_path / "docs")
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out", embedding_provider="local")
    first = build(options)
    pages = sorted(docs.rglob("*.md"))
    edits = count(1)
    results: list[BuildResult] = []

    def edit_one_page() -> None:
        n = next(edits)
        page = pages[n * 7 % len(pages)]
        page.write_text(page.read_text(encoding="utf-8") + f"\n\nEdited for rebuild round {n}.\n")

    benchmark.pedantic(lambda: results.append(build(options)), setup=edit_one_page, rounds=3, iterations=1)
    last = results[-1]
    assert last.cache_misses is not None and 1 <= last.cache_misses <= 3, last
    benchmark.extra_info.update(
        full_build_s=round(first.seconds, 2),
        embed_chunks_per_s=round(first.chunk_count / first.seconds, 1),
        chunks=first.chunk_count,
        rebuild_embedded=last.cache_misses,
        rebuild_cache_hits=last.cache_hits,
    )
    print(
        f"\nfull build {first.seconds:.1f} s ({first.chunk_count} chunks), rebuild after one edit "
        f"{benchmark.stats.stats.median:.2f} s embedding {last.cache_misses} chunk(s)"
    )


def test_index_size_with_vectors(
    benchmark: BenchmarkFixture, claude_local_index: Path, claude_docs: Path
) -> None:
    """Bytes on disk of the claude-docs index with 384-d local vectors, over its markdown."""

    def measure() -> int:
        return _size(claude_local_index)  # the folder is the index: the cache lives elsewhere

    index = benchmark.pedantic(measure, rounds=1, iterations=1)
    markdown = _size(claude_docs, "*.md")
    benchmark.extra_info.update(index_bytes=index, markdown_bytes=markdown, ratio=round(index / markdown, 2))
    print(f"\nindex {index / 2**20:.1f} MiB (cache excluded) for {markdown / 2**20:.1f} MiB of markdown")


def test_incremental_full_text_rebuild_of_the_corpora(
    benchmark: BenchmarkFixture, corpora_docs: Path, tmp_path: Path
) -> None:
    """Issue 23: the SDK corpora rebuilt into the same OUT after one edited file, against a full build
    (a fresh OUT, nothing to reuse), rounds interleaved; the rebuild must equal the full build."""
    import time

    from docs_mcp.artifact.content import content_digest

    docs = shutil.copytree(corpora_docs, tmp_path / "docs")
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    pages = sorted(docs.rglob("*.md"))
    edits = count(1)
    full_s: list[float] = []
    rebuild_s: list[float] = []
    last: list[BuildResult] = []

    def paired_round() -> None:
        n = next(edits)
        page = pages[n * 97 % len(pages)]
        page.write_text(page.read_text(encoding="utf-8") + f"\n\nEdited for rebuild round {n}.\n")
        fresh = tmp_path / f"fresh-{n}"
        started = time.perf_counter()
        build(BuildOptions(docs_dir=docs, out=fresh, cache_dir=tmp_path / f"fresh-cache-{n}"))
        full_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        last.append(build(BuildOptions(docs_dir=docs, out=out)))
        rebuild_s.append(time.perf_counter() - started)
        if n > 1:
            shutil.rmtree(tmp_path / f"fresh-{n - 1}")
            shutil.rmtree(tmp_path / f"fresh-cache-{n - 1}")

    benchmark.pedantic(paired_round, rounds=3, iterations=1)
    fresh = tmp_path / "fresh-3"
    assert last[-1].files_rechunked == 1, last[-1]
    assert content_digest(out, b"") == content_digest(fresh, b""), "the rebuild differs from a full build"
    ratios = sorted(r / f for r, f in zip(rebuild_s, full_s, strict=True))
    benchmark.extra_info.update(
        full_build_s=round(sorted(full_s)[1], 2),
        rebuild_s=round(sorted(rebuild_s)[1], 2),
        rebuild_over_full=round(ratios[1], 3),
        ratio_range=[round(ratios[0], 3), round(ratios[-1], 3)],
    )
    print(f"\n{benchmark.extra_info}")
