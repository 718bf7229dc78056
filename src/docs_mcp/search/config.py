"""The ranking knobs of a ``DocsIndex``, with the defaults measured on claude-docs (docs/ranking.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from docs_mcp.search.facets import SPEC_FACETS, FacetConventions
from docs_mcp.search.fusion import FusionConfig
from docs_mcp.search.kind_prior import KindPrior
from docs_mcp.search.types import SearchMode
from docs_mcp.store.columns import FTS_BODY, FTS_CRUMBS

__all__ = ["SearchConfig", "with_index_fusion"]


# See SearchConfig.vector_floors.
VECTOR_FLOORS: dict[str, float] = {"all-MiniLM-L6-v2": 0.36}


@dataclass(frozen=True)
class SearchConfig:
    """Ranking knobs. Boosts multiply each full-text column's BM25 score; the scores are summed.

    Defaults measured on claude-docs (benchmarks/test_quality.py; every variant tried is in
    docs/ranking.md): crumbs 1.2 is the middle of a plateau (1.0-1.5 gave recall@3 0.723-0.728, MRR@3
    0.867).

    Phrase bonus (the sequential dependence model, Metzler & Croft 2005): each pair of adjacent
    content words of the query is also searched as an exact phrase in every full-text column, and
    phrase matches add ``phrase_weight`` relative to the word matches (SDM's published weights,
    0.1 ordered pairs / 0.85 words, so 0.12). On claude-docs it lifted full text from 0.728 / 0.867
    to 0.746 / 0.877 and local hybrid from 0.780 / 0.913 to 0.783 / 0.920; 0.1-0.3 and phrases
    in the body column only gave MRR@3 0.863-0.877. ``0`` turns it off.
    """

    boosts: Mapping[str, float] = field(default_factory=lambda: {FTS_BODY: 1.0, FTS_CRUMBS: 1.2})
    phrase_weight: float = 0.12
    # At most this many query word pairs become phrase clauses (each one costs query time); claude-docs
    # questions have up to 10, and 8 scored the same as no limit.
    max_phrases: int = 8
    fusion: FusionConfig = field(default_factory=FusionConfig)
    # Each hybrid leg fetches at least this many candidates (more when the page needs it), so the
    # fused order of the first pages does not depend on the page asked for.
    min_candidates: int = 50
    # HNSW candidate list of the vector leg when the table has a vector index; None keeps LanceDB's
    # default (1.5 x the limit). Raising it costs latency (measured in benchmarks/test_search.py).
    hnsw_ef: int | None = None
    # The mode of a request that names none (the MCP tools never do); None: hybrid when the index has
    # vectors, else full text. The eval harness sets it to score one leg through the real server.
    mode: SearchMode | None = None
    # Which facets are language and scope, and whether language filters auto-include global guides.
    facets: FacetConventions = SPEC_FACETS
    # Fold one section's hits in several values of a ``vector_collapse`` facet the caller did not set
    # into its best hit (``docs_mcp.search.folding``).
    fold: bool = True
    # Rank first the hits of a facet value the query names (``docs_mcp.search.inference``).
    infer_filters: bool = True
    # In hybrid mode, the cosine similarity a hit found by meaning alone (no full-text match) must
    # reach, per embedding model (the key is a prefix of the index's recorded model); a model not
    # listed has no floor. Calibrated on claude-docs, the SDK set and nonsense queries (docs/answers.md).
    vector_floors: Mapping[str, float] = field(default_factory=lambda: dict(VECTOR_FLOORS))
    # How the ``kind`` facet (operation, model, error, topic) weighs hits by what the question asks
    # for (``docs_mcp.search.kind_prior``); None turns it off. Indexes without the facet ignore it.
    kind_prior: KindPrior | None = field(default_factory=KindPrior)

    def vector_floor(self, model: str) -> float | None:
        """The floor of the embedding ``model`` (None: no floor)."""
        return next((floor for prefix, floor in self.vector_floors.items() if model.startswith(prefix)), None)


def with_index_fusion(config: SearchConfig, recorded: Mapping[str, float] | None) -> SearchConfig:
    """``config`` with the fusion an index recorded (its manifest's ``fusion``: ``text_weight``,
    ``vector_floor``, from ``build --calibrate``) in place of the defaults; what a caller set itself
    (a fusion or floors other than the defaults) stays."""
    if not recorded:
        return config
    if "text_weight" in recorded and config.fusion == FusionConfig():
        config = replace(config, fusion=replace(config.fusion, text_weight=recorded["text_weight"]))
    if "vector_floor" in recorded and dict(config.vector_floors) == VECTOR_FLOORS:
        config = replace(config, vector_floors={"": recorded["vector_floor"]})  # "" prefixes every model
    return config
