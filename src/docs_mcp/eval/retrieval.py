"""Retrieval quality of an index against labelled questions: recall@k and MRR@k.

The query file is JSON lines: ``{"id", "query", "relevant": [chunk ids], ...}`` (the claude-docs set).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.errors import ConfigError
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchMode, SearchRequest


@dataclass(frozen=True)
class LabelledQuery:
    id: str
    query: str
    relevant: tuple[str, ...]
    filters: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class QueryResult:
    id: str
    query: str
    relevant: tuple[str, ...]
    retrieved: tuple[str, ...]
    recall: float
    reciprocal_rank: float


@dataclass(frozen=True)
class RetrievalReport:
    k: int
    mode: str
    recall: float
    mrr: float
    queries: list[QueryResult]
    seconds: float
    fallback_reasons: list[str] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(
            {
                "k": self.k,
                "mode": self.mode,
                f"recall@{self.k}": round(self.recall, 4),
                f"mrr@{self.k}": round(self.mrr, 4),
                "queries": len(self.queries),
                "seconds": round(self.seconds, 3),
                "fallback_reasons": self.fallback_reasons,
                "details": [
                    q.__dict__ | {"relevant": list(q.relevant), "retrieved": list(q.retrieved)}
                    for q in self.queries
                ],
            },
            indent=2,
        )


def load_queries(path: Path) -> list[LabelledQuery]:
    """The labelled queries in ``path``. Raises ``ConfigError`` naming the bad line."""
    queries: list[LabelledQuery] = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ConfigError(f"cannot read the query file {path}: {error}") from error
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            queries.append(
                LabelledQuery(
                    str(data.get("id", number)),
                    str(data["query"]),
                    tuple(str(r) for r in data["relevant"]),
                    {str(k): str(v) for k, v in data.get("filters", {}).items()},
                )
            )
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ConfigError(f"{path}:{number}: not a labelled query ({error})") from error
    return queries


def score(relevant: Sequence[str], retrieved: Sequence[str], k: int) -> tuple[float, float]:
    """(recall@k, reciprocal rank@k) of one query."""
    top = list(retrieved[:k])
    wanted = set(relevant)
    recall = len(wanted.intersection(top)) / len(wanted) if wanted else 0.0
    rank = next((i for i, cid in enumerate(top, start=1) if cid in wanted), None)
    return recall, (1.0 / rank if rank else 0.0)


def evaluate(
    index_dir: Path,
    queries_file: Path,
    *,
    k: int = 3,
    mode: SearchMode | None = None,
    config: SearchConfig | None = None,
) -> RetrievalReport:
    """Search every labelled query in the index and score the top ``k``.

    Raises ``IndexUnavailable`` for a missing index and ``ConfigError`` for a bad query file.
    """
    index = DocsIndex.open(index_dir, config=config)
    queries = load_queries(queries_file)
    started = time.monotonic()
    results: list[QueryResult] = []
    reasons: set[str] = set()
    ran: set[str] = set()
    for labelled in queries:
        page = index.search(SearchRequest(labelled.query, filters=labelled.filters, limit=k, mode=mode))
        ran.add(page.mode)
        if page.fallback_reason:
            reasons.add(page.fallback_reason)
        retrieved = tuple(hit.chunk_id for hit in page.hits)
        recall, rr = score(labelled.relevant, retrieved, k)
        results.append(QueryResult(labelled.id, labelled.query, labelled.relevant, retrieved, recall, rr))
    count = len(results) or 1
    return RetrievalReport(
        k=k,
        mode="/".join(sorted(ran)) or (mode or "auto"),
        recall=sum(r.recall for r in results) / count,
        mrr=sum(r.reciprocal_rank for r in results) / count,
        queries=results,
        seconds=time.monotonic() - started,
        fallback_reasons=sorted(reasons),
    )
