"""The content-addressed embedding cache: only changed inputs are embedded, interruptions are safe."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.embedding.embedding_cache import SEGMENT_SUFFIX, CachingProvider, cache_key
from docs_mcp.embedding.hash import HashProvider

pytestmark = pytest.mark.timeout(30)


class RecordingProvider(HashProvider):
    """The hash provider, remembering every input it was asked to embed (and the labels)."""

    def __init__(self, model: str = "hash-bow-v1", dimensions: int = 16) -> None:
        super().__init__(model=model, dimensions=dimensions)
        self.embedded: list[str] = []
        self.labels: list[str] = []

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        self.embedded.extend(texts)
        self.labels.extend(labels or [])
        return super().embed_documents(texts)


CORPUS = [f"Document: Guide {n} > Setup. Content: step {n} installs the thing" for n in range(40)]


def build(cache_dir: Path, texts: Sequence[str], inner: RecordingProvider | None = None) -> CachingProvider:
    """What a build does: a fresh provider on the cache directory, embedding every chunk in batches."""
    provider = CachingProvider(inner or RecordingProvider(), cache_dir)
    for start in range(0, len(texts), 16):
        provider.embed_documents(texts[start : start + 16])
    return provider


def test_a_second_build_of_an_unchanged_corpus_embeds_nothing(tmp_path: Path) -> None:
    first = build(tmp_path, CORPUS)
    second = build(tmp_path, CORPUS)

    assert (first.hits, first.misses) == (0, 40)
    assert (second.hits, second.misses) == (40, 0)
    assert second.inner.embedded == []  # type: ignore[attr-defined]


def test_cached_vectors_equal_freshly_embedded_ones_in_input_order(tmp_path: Path) -> None:
    build(tmp_path, CORPUS)
    provider = CachingProvider(RecordingProvider(), tmp_path)

    vectors = provider.embed_documents(list(reversed(CORPUS)))

    expected = RecordingProvider().embed_documents(list(reversed(CORPUS)))
    assert np.allclose(vectors, expected, atol=1e-6)


def test_an_edited_chunk_is_the_only_one_embedded_again(tmp_path: Path) -> None:
    build(tmp_path, CORPUS)
    edited = [*CORPUS]
    edited[7] = edited[7] + " and now configures retries"
    inner = RecordingProvider()

    provider = build(tmp_path, edited, inner)

    assert inner.embedded == [edited[7]]
    assert (provider.hits, provider.misses) == (39, 1)


def test_a_moved_chunk_costs_nothing(tmp_path: Path) -> None:
    build(tmp_path, CORPUS)
    moved = CORPUS[20:] + CORPUS[:20]

    assert build(tmp_path, moved).misses == 0


def test_another_model_or_dimension_count_does_not_share_vectors(tmp_path: Path) -> None:
    build(tmp_path, CORPUS[:5])

    assert build(tmp_path, CORPUS[:5], RecordingProvider(model="hash-v2")).misses == 5
    assert build(tmp_path, CORPUS[:5], RecordingProvider(dimensions=32)).misses == 5
    assert cache_key("hash", "m", 16, "a") != cache_key("hash", "m", 16, "a ")


def test_a_text_repeated_in_one_call_is_embedded_once(tmp_path: Path) -> None:
    inner = RecordingProvider()
    provider = CachingProvider(inner, tmp_path)

    vectors = provider.embed_documents(["same", "other", "same"])

    assert inner.embedded == ["same", "other"]
    assert vectors[0] == vectors[2]


def test_labels_of_the_missing_inputs_reach_a_provider_that_takes_them(tmp_path: Path) -> None:
    inner = RecordingProvider()
    provider = CachingProvider(inner, tmp_path)
    provider.embed_documents(["a"], labels=["x.md#a"])

    provider.embed_documents(["a", "b"], labels=["x.md#a", "y.md#b"])

    assert inner.labels == ["x.md#a", "y.md#b"]


def test_an_interrupted_write_leaves_the_cache_usable(tmp_path: Path) -> None:
    build(tmp_path, CORPUS[:16])
    segment = next(tmp_path.glob(f"*{SEGMENT_SUFFIX}"))
    # A crash mid-write leaves a temporary file; a damaged segment must not poison the cache either.
    (tmp_path / "deadbeef.tmp").write_bytes(b"DMCPEMB1partial")
    (tmp_path / f"broken{SEGMENT_SUFFIX}").write_bytes(segment.read_bytes()[:-10])
    inner = RecordingProvider()

    provider = build(tmp_path, CORPUS[:20], inner)

    assert provider.hits == 16
    assert inner.embedded == CORPUS[16:20]


def test_a_truncated_only_segment_means_its_inputs_are_embedded_again(tmp_path: Path) -> None:
    build(tmp_path, CORPUS[:16])
    segment = next(tmp_path.glob(f"*{SEGMENT_SUFFIX}"))
    segment.write_bytes(segment.read_bytes()[:100])

    assert build(tmp_path, CORPUS[:16]).misses == 16


def test_queries_pass_through_uncached(tmp_path: Path) -> None:
    inner = RecordingProvider()
    provider = CachingProvider(inner, tmp_path)

    assert provider.embed_query("retries") == inner.embed_query("retries")
    assert (provider.hits, provider.misses, list(tmp_path.iterdir())) == (0, 0, [])
    assert (provider.name, provider.model, provider.dimensions) == ("hash", "hash-bow-v1", 16)


def write_docs(root: Path, retries_body: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h2"}}')
    (root / "setup.md").write_text("# Setup\n\n## Install\n\nRun it.\n\n## Configure\n\nEdit the file.\n")
    (root / "retries.md").write_text(f"# Retries\n\n## Backoff\n\n{retries_body}\n\n## Limits\n\nFive.\n")


def test_a_rebuild_embeds_only_the_chunks_of_the_edited_file(tmp_path: Path) -> None:
    from docs_mcp.indexing.pipeline import BuildOptions, build  # the build that wraps providers in this cache

    docs, out, cache = tmp_path / "docs", tmp_path / "index", tmp_path / "cache"
    write_docs(docs, "Wait one second, then double.")
    # Full builds: an update (indexing/incremental.py) does not even look up the unchanged chunks.
    options = BuildOptions(docs_dir=docs, out=out, embedding_provider="hash", cache_dir=cache, full=True)

    first = build(options)
    unchanged = build(options)
    write_docs(docs, "Wait two seconds, then double.")
    edited = build(options)

    assert (first.cache_hits, first.cache_misses) == (0, first.chunk_count)
    assert (unchanged.cache_hits, unchanged.cache_misses) == (first.chunk_count, 0)
    assert edited.cache_misses == 1 and edited.cache_hits == first.chunk_count - 1
