"""Ranking variants side by side, without a rebuild per variant: the command behind docs/ranking.md.

    python -m benchmarks.ranking_lab --set claude-docs [--inputs plain,labels] [--fusion dbsf:1.5,...]
    python -m benchmarks.ranking_lab --set sdk --inputs plain,labels
    python -m benchmarks.ranking_lab --set claude-docs --passages 4,8o32,4p --aggregate max,mix:0.5
    python -m benchmarks.ranking_lab --set claude-docs --text-passages 256,512 --depth 75

The full-text leg is the real one (a full-text index built once under ``--work``, searched through
``DocsIndex`` with the ``--crumbs``/``--phrase`` boosts); the vector leg is exact cosine similarity
in numpy over the local model's vectors of each embedding-input variant (cached under ``--work``),
with the query's facet filters applied first, as the index's prefilter does; the two are fused with
``docs_mcp.search.fusion.fuse``. On a table without a vector index LanceDB's vector search is exact
too, so a row here equals what a built index answers (checked: claude-docs today, 0.793 / 0.910 both
ways). claude-docs is scored at k = 3 (recall, MRR), the SDK set at k = 5 with ``benchmarks.sdk_set``.
On the SDK set the full-text leg comes folded across languages (``DocsIndex`` folds its own hits)
and the vector leg does not, so its hybrid rows (0.775 / 0.636 today) differ from a built index's
(0.755 / 0.620): compare rows of the lab with each other.

Passage variants (issue 15's "long sections" lever): ``--passages`` embeds each chunk as up to CAP
windows of its text, each behind the heading path (the first window is what "plain" embeds), and
scores a chunk by an ``--aggregate`` of its windows' cosines; ``--text-passages`` runs the full-text
leg over an index of passages of that many tokens (built once under ``--work``), each chunk at its
best passage's score; ``--depth`` sets both legs' candidates.
Needs ``DOCS_MCP_EVALDATA`` (or ``../shared/evaldata``) and the local model.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from benchmarks.sdk_set import QUERIES as SDK_QUERIES
from benchmarks.sdk_set import load_set, repeated
from benchmarks.sdk_set import score as sdk_score
from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.embedding.local import LocalProvider, find_tokenizer
from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.indexing.rows import chunk_rows
from docs_mcp.indexing.writer import write_index
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.fusion import FusionConfig, fuse
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest, Section
from docs_mcp.store.columns import FTS_BODY, FTS_CRUMBS
from docs_mcp.store.index_manifest import read_manifest, write_manifest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from testkit.evaldata_sets import claude_docs_queries, materialize_sdk_corpora, stage_claude_docs

Ranked = list[tuple[str, float]]
DEPTH = 50  # each leg's candidates, as SearchConfig.min_candidates
MAX_TOKENS = 128  # the local model's input length, [CLS] and [SEP] included


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


def _text_vectors(work: Path, key: str, texts: Sequence[str], provider: LocalProvider) -> np.ndarray:
    """Vectors of ``texts`` from a per-text cache: passage variants share the windows they have in common."""
    path = work / "vectors" / f"{key}-store.npz"
    known: dict[str, np.ndarray] = {}
    if path.exists():
        stored = np.load(path)
        known = dict(zip(stored["keys"].tolist(), stored["vectors"], strict=True))
    digests = [hashlib.sha256(t.encode()).hexdigest()[:24] for t in texts]
    missing = sorted({d: t for d, t in zip(digests, texts, strict=True) if d not in known}.items())
    if missing:
        made = provider.embed_documents([t for _, t in missing])
        known.update((d, np.asarray(v, dtype=np.float32)) for (d, _), v in zip(missing, made, strict=True))
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, keys=np.array(list(known)), vectors=np.stack(list(known.values())))
    return np.stack([known[d] for d in digests])


def _windows(chunk: Chunk, tokenizer: Tokenizer, cap: int, overlap: int, path_only: bool) -> list[str]:
    """The chunk's embedding inputs as passages: the heading path, a blank line, then one window of the
    text; the first window is what "plain" embeds, the others continue the text (``overlap`` tokens
    shared with the previous one), at most ``cap`` windows; ``path_only`` adds the heading path alone.
    """
    path = _context(chunk)
    budget = max(
        32, MAX_TOKENS - 2 - (len(tokenizer.encode(path, add_special_tokens=False).ids) if path else 0)
    )
    offsets = tokenizer.encode(chunk.text, add_special_tokens=False).offsets
    inputs: list[str] = []
    start = 0
    while len(inputs) < cap and (start < len(offsets) or not inputs):
        span = offsets[start : start + budget]
        window = chunk.text[span[0][0] : span[-1][1]] if span else chunk.text
        inputs.append(f"{path}\n\n{window}" if path else window)
        start += budget - overlap
    if path_only and path:
        inputs.append(path)
    return inputs


def _aggregate(how: str, sims: np.ndarray, owners: np.ndarray, first: np.ndarray, count: int) -> np.ndarray:
    """One score per chunk from its windows' cosines: ``max``, ``mix:L`` ((1 - L) first + L max) or
    ``lse:T`` (T log mean exp(s / T), between the mean (large T) and the max (small T))."""
    best = np.full(count, -np.inf, dtype=np.float64)
    np.maximum.at(best, owners, sims)
    name, _, arg = how.partition(":")
    if name == "max":
        return best
    if name == "mix":
        return np.asarray((1 - float(arg)) * sims[first] + float(arg) * best, dtype=np.float64)
    temperature = float(arg)
    total = np.zeros(count)
    np.add.at(total, owners, np.exp((sims - best[owners]) / temperature))
    return best + temperature * np.log(total / np.bincount(owners, minlength=count))


def _aggregate_for(
    how: str, vectors: np.ndarray, owners: np.ndarray, first: np.ndarray, query: np.ndarray
) -> np.ndarray:
    """Every chunk's score for ``query`` from the cosines of its windows (rows of ``vectors``)."""
    return _aggregate(how, vectors @ query, owners, first, int(owners[-1]) + 1)


def _vector_leg(chunks: Sequence[Chunk], scores: np.ndarray, filters: dict[str, str], depth: int) -> Ranked:
    for key, value in filters.items():
        scores = np.where([c.metadata.get(key) == value for c in chunks], scores, -np.inf)
    top = [i for i in np.argsort(-scores, kind="stable")[:depth] if np.isfinite(scores[i])]
    return sorted(((chunks[i].id, float(scores[i])) for i in top), key=lambda t: (-t[1], t[0]))


PASSAGE_MARK = "~passage"


def _text_passages(chunks: Sequence[Chunk], tokenizer: Tokenizer, size: int) -> list[Chunk]:
    """Each chunk's text cut into windows of ``size`` tokens (a shorter chunk stays whole), as chunks
    with the chunk's heading path and facets and an id ``{chunk id}~passage{n}``."""
    passages: list[Chunk] = []
    for chunk in chunks:
        offsets = tokenizer.encode(chunk.text, add_special_tokens=False).offsets
        for n, start in enumerate(range(0, max(len(offsets), 1), size)):
            span = offsets[start : start + size]
            text = chunk.text[span[0][0] : span[-1][1]] if span else chunk.text
            passages.append(replace(chunk, id=f"{chunk.id}{PASSAGE_MARK}{n}", text=text, markdown=text))
    return passages


def _passage_index(work: Path, name: str, chunks: Sequence[Chunk], tokenizer: Tokenizer, size: int) -> Path:
    out = work / name / f"fulltext-passages-{size}"
    if not out.exists():
        manifest = read_manifest(work / name / "fulltext")
        staging = out.with_name(out.name + ".tmp")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        write_index(
            staging,
            chunk_rows(_text_passages(chunks, tokenizer, size), manifest.facets),
            sorted(manifest.facets),
        )
        write_manifest(staging, manifest)
        staging.rename(out)
    return out


def _deduped(hits: Sequence[tuple[str, float]], depth: int) -> Ranked:
    """Passage hits (best first) as chunk hits: each chunk at its best passage's score."""
    seen: dict[str, float] = {}
    for cid, score in hits:
        seen.setdefault(cid.partition(PASSAGE_MARK)[0], score)
    return list(seen.items())[:depth]


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


@dataclass
class _Lab:
    """One set's chunks, questions and legs, and how each row is printed."""

    args: argparse.Namespace
    queries: Sequence[LabelledQuery]
    chunks: Sequence[Chunk]
    config: SearchConfig
    asked: np.ndarray
    tokenizer: Tokenizer

    def figures(self, rankings: Sequence[Ranked]) -> str:
        return _figures(self.args.set, self.queries, rankings, {c.id: c for c in self.chunks})

    def text_leg(self, where: Path, limit: int) -> list[Ranked]:
        """The full-text leg of every question from the index at ``where`` (passages deduped to chunks)."""
        index = DocsIndex.open(where, config=self.config)
        legs: list[Ranked] = []
        for q in self.queries:
            hits: list[tuple[str, float]] = []
            for offset in range(0, limit, DEPTH):  # pages of at most 50, the request's limit
                request = SearchRequest(
                    q.query, dict(q.filters), min(DEPTH, limit - offset), offset, "fulltext"
                )
                hits += [(h.chunk_id, float(h.score or 0)) for h in index.search(request).hits]
            legs.append(_deduped(hits, self.args.depth))
        return legs

    def vector_leg(self, scores: Callable[[np.ndarray], np.ndarray]) -> list[Ranked]:
        """The vector leg of every question, a chunk's score being ``scores(query vector)``."""
        return [
            _vector_leg(self.chunks, scores(a), dict(q.filters), self.args.depth)
            for a, q in zip(self.asked, self.queries, strict=True)
        ]

    def report(self, label: str, text: Sequence[Ranked], vector: Sequence[Ranked]) -> None:
        cells = [f"vector {self.figures(vector)}"]
        for method, _, weight in (f.partition(":") for f in self.args.fusion.split(",")):
            fusion = FusionConfig(method=method, text_weight=float(weight))  # type: ignore[arg-type]
            fused = [fuse(t, v, fusion) for t, v in zip(text, vector, strict=True)]
            cells.append(f"{method} {float(weight):g}: {self.figures(fused)}")
        print(f"  {label}: " + "; ".join(cells), flush=True)


def _text_passage_rows(lab: _Lab, whole: Sequence[Ranked], plain: Sequence[Ranked]) -> None:
    """Rows with the full-text leg over passages, alone and fused with the whole chunks' leg."""
    args = lab.args
    for size in filter(None, args.text_passages.split(",")):
        where = _passage_index(args.work, args.set, lab.chunks, lab.tokenizer, int(size))
        passages = lab.text_leg(where, 4 * args.depth)
        for share in [0.0, *(float(w) for w in filter(None, args.passage_share.split(",")))]:
            # share 0: passages alone; else the whole chunks' and the passages' lists fused (dbsf, 1 : share)
            mixed = FusionConfig(method="dbsf", text_weight=1.0, vector_weight=share)
            text = [
                fuse(w, p, mixed)[: args.depth] if share else p for w, p in zip(whole, passages, strict=True)
            ]
            label = f"{size}-token passages" + (f", fused 1 : {share:g} with whole chunks" if share else "")
            print(f"  full text over {label}: {lab.figures(text)}")
            lab.report(f"  plain vectors with full text over {label}", text, plain)


def _vector_passage_rows(lab: _Lab, text: Sequence[Ranked], provider: LocalProvider) -> None:
    """Rows with the vector leg over several windows per chunk, for each aggregate of their cosines."""
    args = lab.args
    for variant in filter(None, args.passages.split(",")):
        cap, _, overlap = variant.rstrip("p").partition("o")
        windows = [
            _windows(c, lab.tokenizer, int(cap), int(overlap or 0), variant.endswith("p")) for c in lab.chunks
        ]
        counts = [len(w) for w in windows]
        owners = np.repeat(np.arange(len(lab.chunks)), counts)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        flat = [window for chunk_windows in windows for window in chunk_windows]
        vectors = _text_vectors(args.work, f"{args.set}-passages", flat, provider)
        for how in args.aggregate.split(","):
            lab.report(
                f"passages {variant} ({len(flat) / len(lab.chunks):.2f} per chunk), {how}",
                text,
                lab.vector_leg(partial(_aggregate_for, how, vectors, owners, first)),
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["claude-docs", "sdk"], default="claude-docs")
    parser.add_argument("--inputs", default="plain", help=f"comma-separated, of: {', '.join(INPUTS)}")
    parser.add_argument("--fusion", default="linear:1.0,linear:1.5,dbsf:1.0,dbsf:1.5,dbsf:2.0,rrf:1.5")
    parser.add_argument(
        "--passages",
        default="",
        help="comma-separated passage variants CAP[oOVERLAP][p]: at most CAP windows per chunk, OVERLAP "
        "tokens shared, p adds the heading path alone (e.g. 4,8o16,8p)",
    )
    parser.add_argument("--aggregate", default="max", help="comma-separated: max, mix:L, lse:T")
    parser.add_argument(
        "--text-passages", default="", help="comma-separated token counts: the full-text leg over passages"
    )
    parser.add_argument(
        "--passage-share", default="", help="comma-separated weights of the passages fused with whole chunks"
    )
    parser.add_argument("--depth", type=int, default=DEPTH, help="candidates per leg")
    parser.add_argument("--crumbs", type=float, default=1.2)
    parser.add_argument("--phrase", type=float, default=0.12)
    parser.add_argument("--work", type=Path, default=Path(".ranking-lab"))
    args = parser.parse_args(argv)
    docs, queries = _stage(args.set, args.work)
    chunks = load_corpus(docs).chunks
    fulltext = args.work / args.set / "fulltext"
    if not fulltext.exists():
        build(BuildOptions(docs_dir=docs, out=fulltext))
    config = SearchConfig(boosts={FTS_BODY: 1.0, FTS_CRUMBS: args.crumbs}, phrase_weight=args.phrase)
    tokenizer = Tokenizer.from_file(str(find_tokenizer()))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    provider = LocalProvider()
    asked = np.array([provider.embed_query(q.query) for q in queries], dtype=np.float32)
    lab = _Lab(args, queries, chunks, config, asked, tokenizer)
    text = lab.text_leg(fulltext, args.depth)
    print(f"{args.set}, crumbs {args.crumbs}, phrase {args.phrase}: full text {lab.figures(text)}")
    for variant in filter(None, args.inputs.split(",")):
        vectors = _vectors(args.work, f"{args.set}-{variant}", [INPUTS[variant](c) for c in chunks], provider)
        lab.report(f"input {variant}", text, lab.vector_leg(vectors.__matmul__))
    if args.text_passages:
        plain = _vectors(args.work, f"{args.set}-plain", [INPUTS["plain"](c) for c in chunks], provider)
        _text_passage_rows(lab, text, lab.vector_leg(plain.__matmul__))
    _vector_passage_rows(lab, text, provider)
    return 0


if __name__ == "__main__":
    sys.exit(main())
