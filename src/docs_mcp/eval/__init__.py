"""docs_mcp.eval: retrieval quality of an index, measured through the MCP tools agents call.

``evaluate(EvalOptions(...))`` runs labelled queries (:mod:`docs_mcp.eval.queries`) through
``search_docs`` in process, over stdio or over HTTP, matches hits to the relevant ids
(:mod:`docs_mcp.eval.matching`) and reports recall, precision, MRR, nDCG and hit rate at each k
(:mod:`docs_mcp.eval.metrics`), latency, categories and deltas from a baseline report.

The names in ``__all__`` load on first use, so importing a light module of the package (the query
file format, matching) does not bring in the MCP client and LanceDB.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docs_mcp.eval.harness import DEFAULT_KS, EvalOptions, evaluate
    from docs_mcp.eval.queries import LabelledQuery, load_queries
    from docs_mcp.eval.report import EvalReport, RunReport

__all__ = [
    "DEFAULT_KS",
    "EvalOptions",
    "EvalReport",
    "LabelledQuery",
    "RunReport",
    "evaluate",
    "load_queries",
]

_HOMES = {
    "DEFAULT_KS": "harness",
    "EvalOptions": "harness",
    "evaluate": "harness",
    "LabelledQuery": "queries",
    "load_queries": "queries",
    "EvalReport": "report",
    "RunReport": "report",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
