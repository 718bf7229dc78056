"""Benchmark fixtures: the real SDK corpora (api/language/scope facets) and a synthetic 100k-chunk index.

Both are built once per session in a temporary folder. Run with
``.venv/bin/python -m pytest benchmarks -p no:cacheprovider --benchmark-only``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.errors import ConfigError
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.indexing.rows import chunk_rows
from docs_mcp.indexing.writer import write_index
from testkit.cache_home import session_cache_home, test_cache_home  # noqa: F401 (autouse)
from testkit.evaldata_sets import materialize_sdk_corpora, stage_claude_docs

SYNTHETIC_ROWS = int(os.environ.get("DOCS_MCP_BENCH_ROWS", "100000"))
SYNTHETIC_DIMENSIONS = 384
LANGUAGES = ("python", "typescript", "go", "java", "csharp")


@pytest.fixture(scope="session")
def evaldata_dir() -> Path:
    path = Path(
        os.environ.get("DOCS_MCP_EVALDATA", Path(__file__).resolve().parents[2] / "shared" / "evaldata")
    )
    if not (path / "README.md").is_file():
        pytest.skip(f"evaldata not found at {path}")
    return path


@pytest.fixture(scope="session")
def corpora_docs(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return materialize_sdk_corpora(evaldata_dir / "corpora", tmp_path_factory.mktemp("corpora") / "corpora")


@pytest.fixture(scope="session")
def corpora_index(corpora_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpora-index") / "out"
    build(BuildOptions(docs_dir=corpora_docs, out=out))
    return out


@pytest.fixture(scope="session")
def claude_docs(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The claude-docs labelled set staged as a docs folder (see testkit/evaldata_sets.py)."""
    return stage_claude_docs(evaldata_dir, tmp_path_factory.mktemp("claude-docs") / "docs")


@pytest.fixture(scope="session")
def claude_fulltext_index(claude_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("claude-fulltext") / "out"
    build(BuildOptions(docs_dir=claude_docs, out=out))
    return out


@pytest.fixture(scope="session")
def local_model() -> None:
    """Skips the test when the local embedding model (extra ``local``) is not installed."""
    from docs_mcp.embedding import local

    try:
        local.find_tokenizer()
    except ConfigError as missing:
        pytest.skip(f"local model not installed: {missing}")


@pytest.fixture(scope="session")
def claude_local_index(
    local_model: None, claude_docs: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    out = tmp_path_factory.mktemp("claude-local") / "out"
    build(BuildOptions(docs_dir=claude_docs, out=out, embedding_provider="local"))
    return out


def _synthetic_chunks(rows: int) -> list[Chunk]:
    # Zipf-distributed words, like prose: a few very common terms and a long tail of rare ones.
    rng = np.random.default_rng(7)
    vocabulary = np.array(
        [f"term{i}" for i in range(30_000)] + ["retry", "create", "link", "timeout", "page"]
    )
    ranks = np.minimum(rng.zipf(1.2, size=rows * 80), len(vocabulary)) - 1
    words = vocabulary[ranks].reshape(rows, 80)
    chunks = []
    for i in range(rows):
        text = " ".join(words[i])
        language = LANGUAGES[i % len(LANGUAGES)]
        chunks.append(
            Chunk(
                id=f"{language}/page{i // 8}.md#section-{i % 8}",
                file_path=f"{language}/page{i // 8}.md",
                heading=f"Section {words[i][0]} {words[i][1]}",
                level=2,
                breadcrumb=(f"Page {i // 8}",),
                ordinal=i % 8,
                markdown=f"## Section\n\n{text}\n",
                text=text,
                embedding_input=text,
                start_line=1,
                end_line=3,
                metadata={"language": language, "scope": "global-guide" if i % 10 == 0 else "sdk-specific"},
                title=f"Page {i // 8}",
            )
        )
    return chunks


@pytest.fixture(scope="session")
def synthetic_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 100k-chunk index with 384-d vectors (IVF_HNSW_SQ) written straight from rows."""
    out = tmp_path_factory.mktemp("synthetic") / "out"
    out.mkdir()
    started = time.monotonic()
    chunks = _synthetic_chunks(SYNTHETIC_ROWS)
    vectors = (
        np.random.default_rng(3).standard_normal((SYNTHETIC_ROWS, SYNTHETIC_DIMENSIONS)).astype(np.float32)
    )
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    facets = ["language", "scope"]
    write_index(out, chunk_rows(chunks, facets, vectors), facets)
    from docs_mcp.store.index_manifest import FORMAT_VERSION, EmbeddingInfo, IndexManifest, write_manifest

    write_manifest(
        out,
        IndexManifest(
            format_version=FORMAT_VERSION,
            docs_mcp_version="bench",
            description="synthetic",
            instructions=None,
            facets={"language": sorted(LANGUAGES), "scope": ["global-guide", "sdk-specific"]},
            embedding=EmbeddingInfo("hash", "hash-bow-v1", SYNTHETIC_DIMENSIONS),
            chunk_count=SYNTHETIC_ROWS,
            file_count=SYNTHETIC_ROWS // 8,
            content_hash="synthetic",
        ),
    )
    print(f"\nsynthetic index: {SYNTHETIC_ROWS} rows in {time.monotonic() - started:.1f} s")
    return out
