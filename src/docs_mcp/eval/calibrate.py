"""``build --calibrate QUERIES``: pick an index's hybrid fusion from labelled questions.

Tries each full-text weight of ``TEXT_WEIGHTS`` with each meaning-only floor around the embedding
model's calibrated one (``FLOOR_STEPS``), scores every question of the labelled file in hybrid mode
(MRR@``k`` of the first relevant hit, then hit@3), and records the best in the index manifest
(``fusion``); ``DocsIndex`` applies it from then on. Ties keep the defaults (text weight 1.5, the
model's floor), so a set that cannot tell them apart changes nothing. A relevant entry matches a hit
that is it, a part (``-part-N``) or subsection of it, or, for an entry without ``#``, any chunk of
that page; copies folded into a hit (``also_in``) count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path

from docs_mcp.errors import ConfigError
from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.fusion import FusionConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest, Section
from docs_mcp.store.index_manifest import read_manifest, replace_manifest

__all__ = ["FLOOR_STEPS", "TEXT_WEIGHTS", "Calibration", "calibrate"]

TEXT_WEIGHTS = (1.0, 1.25, 1.5, 2.0, 3.0)
FLOOR_STEPS = (-0.06, 0.0, 0.06)  # added to the model's calibrated floor (0 when it has none)
DEFAULT_TEXT_WEIGHT = FusionConfig().text_weight


@dataclass(frozen=True)
class Calibration:
    """The fusion chosen, with its figures over ``questions`` questions."""

    text_weight: float
    vector_floor: float
    mrr: float
    hit_at_3: float
    questions: int


def _matches(entry: str, hit: Section) -> bool:
    ids = [hit.chunk_id, *(variant.chunk_id for variant in hit.also_in)]
    if "#" not in entry:
        return any(cid.partition("#")[0] == entry for cid in ids)
    return any(cid == entry or cid.startswith((entry + "/", entry + "-part-")) for cid in ids)


def _score(index: DocsIndex, queries: Sequence[LabelledQuery], k: int) -> tuple[float, float]:
    """(MRR@k, hit@3) of ``queries`` on ``index`` in hybrid mode."""
    reciprocal, hits = 0.0, 0
    for query in queries:
        filters = {name: value for name, value in query.filters.items() if name in index.facets}
        page = index.search(SearchRequest(query.query, filters=filters, limit=k, mode="hybrid"))
        rank = next(
            (n for n, hit in enumerate(page.hits, 1) if any(_matches(e, hit) for e in query.relevant)), None
        )
        reciprocal += 1 / rank if rank else 0.0
        hits += rank is not None and rank <= 3
    return reciprocal / len(queries), hits / len(queries)


def calibrate(out: Path, queries_file: Path, k: int = 5) -> Calibration:
    """Choose and record the hybrid fusion of the index in ``out`` from ``queries_file``.

    Raises ``ConfigError`` when the index has no vectors or the file is not a labelled query file.
    """
    queries = load_queries(queries_file)
    manifest = read_manifest(out)
    if manifest.embedding is None:
        raise ConfigError(
            f"{out} has no vectors: --calibrate tunes hybrid fusion; build with --embedding-provider"
        )
    replace_manifest(out, replace(manifest, fusion=None))  # what an earlier calibration chose must not apply
    base = SearchConfig()
    floor = base.vector_floor(manifest.embedding.model) or 0.0
    best: Calibration | None = None
    for weight, step in product(TEXT_WEIGHTS, FLOOR_STEPS):
        config = replace(
            base, fusion=FusionConfig(text_weight=weight), vector_floors={"": round(floor + step, 4)}
        )
        mrr, hit3 = _score(DocsIndex.open(out, config=config), queries, k)
        found = Calibration(weight, round(floor + step, 4), mrr, hit3, len(queries))
        # Better only when strictly better: ties keep the earlier, and the defaults go first.
        if best is None or (mrr, hit3) > (best.mrr, best.hit_at_3):
            best = found
        if weight == DEFAULT_TEXT_WEIGHT and step == 0 and best.mrr == mrr and best.hit_at_3 == hit3:
            best = found
    assert best is not None
    replace_manifest(
        out, replace(manifest, fusion={"text_weight": best.text_weight, "vector_floor": best.vector_floor})
    )
    return best
