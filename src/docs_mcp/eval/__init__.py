"""docs_mcp.eval: retrieval quality of an index, measured through the MCP tools agents call.

``evaluate(EvalOptions(...))`` runs labelled queries (:mod:`docs_mcp.eval.queries`) through
``search_docs`` in process, over stdio or over HTTP, matches hits to the relevant ids
(:mod:`docs_mcp.eval.matching`) and reports recall, precision, MRR, nDCG and hit rate at each k
(:mod:`docs_mcp.eval.metrics`), latency, categories and deltas from a baseline report.

The names in ``__all__`` load on first use, so importing a light module of the package (the query
file format, matching) does not bring in the MCP client and LanceDB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.eval.harness import DEFAULT_KS as DEFAULT_KS
    from docs_mcp.eval.harness import EvalOptions as EvalOptions
    from docs_mcp.eval.harness import evaluate as evaluate
    from docs_mcp.eval.queries import LabelledQuery as LabelledQuery
    from docs_mcp.eval.queries import load_queries as load_queries
    from docs_mcp.eval.report import EvalReport as EvalReport
    from docs_mcp.eval.report import RunReport as RunReport

__all__, __getattr__, __dir__ = lazy_exports(__name__)
