"""Ranking variants side by side, without a rebuild per variant: the command behind docs/ranking.md.

    python -m benchmarks.ranking_lab --set claude-docs [--inputs plain,labels] [--fusion dbsf:1.5,...]
    python -m benchmarks.ranking_lab --set sdk --inputs plain,labels

The full-text leg is the real one (a full-text index built once under ``--work``, searched through
``DocsIndex`` with the ``--crumbs``/``--phrase`` boosts); the vector leg is exact cosine similarity
in numpy over the local model's vectors of each embedding-input variant (cached under ``--work``),
with the query's facet filters applied first, as the index's prefilter does; the two are fused with
``docs_mcp.search.fusion.fuse``. On a table without a vector index LanceDB's vector search is exact
too, so a row here equals what a built index answers (checked: claude-docs today, 0.793 / 0.910 both
ways). claude-docs is scored at k = 3 (recall, MRR), the SDK set at k = 5 with ``benchmarks.sdk_set``.
Needs ``DOCS_MCP_EVALDATA`` (or ``../shared/evaldata``) and the local model.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from benchmarks.sdk_set import QUERIES as SDK_QUERIES
from benchmarks.sdk_set import load_set, repeated
from benchmarks.sdk_set import score as sdk_score
from docs_mcp.authoring.corpus import load_corpus
from docs_mcp.authoring.model import Chunk
from docs_mcp.build.pipeline import BuildOptions, build
from docs_mcp.embedding.local import LocalProvider
from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.fusion import FusionConfig, fuse
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest, Section
from docs_mcp.store.schema import FTS_BODY, FTS_CRUMBS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from evaldata_sets import claude_docs_queries, materialize_sdk_corpora, stage_claude_docs

Ranked = list[tuple[str, float]]
DEPTH = 50  # each leg's candidates, as SearchConfig.min_candidates


def _context(chunk: Chunk) -> str:
    parts: list[str] = []
    for part in (chunk.title, *chunk.breadcrumb, chunk.heading):
        if part and (not parts or parts[-1] != part):
            parts.append(part)
    return " > ".join(parts)


# Embedding-input variants: "plain" is the chunker's today, "labels" the spec example's wording.
INPUTS: dict[str, Callable[[Chunk], str]] = {
    "plain": lambda c: f"{_context(c)}\n\n{c.text}" if _context(c) else c.text,
    "labels": lambda c: f"Document: {_context(c)}. Content: {c.text}" if _context(c) else c.text,
    "title-heading": lambda c: f"{c.title}: {c.heading}\n{c.text}",
    "text": lambda c: c.text,
}


def _evaldata() -> Path:
    configured = os.environ.get("DOCS_MCP_EVALDATA")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "shared" / "evaldata"


def _stage(name: str, work: Path) -> tuple[Path, list[LabelledQuery]]:
    docs = work / name / "docs"
    if name == "claude-docs":
        if not docs.exists():
            stage_claude_docs(_evaldata(), docs)
        return docs, load_queries(claude_docs_queries(_evaldata()))
    if not docs.exists():
        materialize_sdk_corpora(_evaldata() / "corpora", docs)
    return docs, load_set(SDK_QUERIES)


def _vectors(work: Path, key: str, texts: Sequence[str], provider: LocalProvider) -> np.ndarray:
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]
    path = work / "vectors" / f"{key}-{digest}.npy"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, np.asarray(provider.embed_documents(list(texts)), dtype=np.float32))
    return np.load(path)


def _vector_leg(
    chunks: Sequence[Chunk], vectors: np.ndarray, query: np.ndarray, filters: dict[str, str]
) -> Ranked:
    sims = vectors @ query
    for key, value in filters.items():
        sims = np.where([c.metadata.get(key) == value for c in chunks], sims, -np.inf)
    top = [i for i in np.argsort(-sims, kind="stable")[:DEPTH] if np.isfinite(sims[i])]
    return sorted(((chunks[i].id, float(sims[i])) for i in top), key=lambda t: (-t[1], t[0]))


def _recall_rr(relevant: Sequence[str], retrieved: Sequence[str], k: int) -> tuple[float, float]:
    """Plain recall@k and reciprocal rank@k, gold ids matched exactly (as claude-docs was scored)."""
    top = list(retrieved[:k])
    rank = next((i for i, cid in enumerate(top, start=1) if cid in relevant), None)
    return len(set(relevant).intersection(top)) / len(relevant), (1.0 / rank if rank else 0.0)


def _figures(
    name: str, queries: Sequence[LabelledQuery], rankings: Sequence[Ranked], chunks: dict[str, Chunk]
) -> str:
    if name == "claude-docs":
        scores = [
            _recall_rr(q.relevant, [cid for cid, _ in r], 3) for q, r in zip(queries, rankings, strict=True)
        ]
        return f"{np.mean([s[0] for s in scores]):.3f} / {np.mean([s[1] for s in scores]):.3f}"
    recall, rr, rep = [], [], 0
    for q, r in zip(queries, rankings, strict=True):
        hits = [
            Section(
                cid,
                chunks[cid].file_path,
                chunks[cid].heading,
                chunks[cid].breadcrumb,
                chunks[cid].metadata,
                1,
                1,
            )
            for cid, _ in r[:5]
        ]
        a, b = sdk_score(q, hits)
        recall.append(a)
        rr.append(b)
        rep += "language" not in q.filters and repeated(hits, strict=False)
    return f"{np.mean(recall):.3f} / {np.mean(rr):.3f} ({rep} rep)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["claude-docs", "sdk"], default="claude-docs")
    parser.add_argument("--inputs", default="plain", help=f"comma-separated, of: {', '.join(INPUTS)}")
    parser.add_argument("--fusion", default="linear:1.0,linear:1.5,dbsf:1.0,dbsf:1.5,dbsf:2.0,rrf:1.5")
    parser.add_argument("--crumbs", type=float, default=1.2)
    parser.add_argument("--phrase", type=float, default=0.12)
    parser.add_argument("--work", type=Path, default=Path(".ranking-lab"))
    args = parser.parse_args(argv)
    docs, queries = _stage(args.set, args.work)
    chunks = load_corpus(docs).chunks
    by_id = {c.id: c for c in chunks}
    fulltext = args.work / args.set / "fulltext"
    if not fulltext.exists():
        build(BuildOptions(docs_dir=docs, out=fulltext))
    config = SearchConfig(boosts={FTS_BODY: 1.0, FTS_CRUMBS: args.crumbs}, phrase_weight=args.phrase)
    index = DocsIndex.open(fulltext, config=config)
    text = [
        [
            (h.chunk_id, float(h.score or 0))
            for h in index.search(SearchRequest(q.query, dict(q.filters), DEPTH, 0, "fulltext")).hits
        ]
        for q in queries
    ]
    figures = _figures(args.set, queries, text, by_id)
    print(f"{args.set}, crumbs {args.crumbs}, phrase {args.phrase}: full text {figures}")
    provider = LocalProvider()
    asked = np.array([provider.embed_query(q.query) for q in queries], dtype=np.float32)
    fusions = [(m, float(w)) for m, _, w in (f.partition(":") for f in args.fusion.split(","))]
    for variant in args.inputs.split(","):
        vectors = _vectors(args.work, f"{args.set}-{variant}", [INPUTS[variant](c) for c in chunks], provider)
        vector = [
            _vector_leg(chunks, vectors, a, dict(q.filters)) for a, q in zip(asked, queries, strict=True)
        ]
        cells = [f"vector {_figures(args.set, queries, vector, by_id)}"]
        for method, weight in fusions:
            fusion = FusionConfig(method=method, text_weight=weight)  # type: ignore[arg-type]
            fused = [fuse(t, v, fusion) for t, v in zip(text, vector, strict=True)]
            cells.append(f"{method} {weight:g}: {_figures(args.set, queries, fused, by_id)}")
        print(f"  input {variant}: " + "; ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
