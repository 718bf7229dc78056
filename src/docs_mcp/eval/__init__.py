"""docs_mcp.eval: retrieval quality of an index, measured through the MCP tools agents call.

``evaluate(EvalOptions(...))`` runs labelled queries (:mod:`docs_mcp.eval.queries`) through
``search_docs`` in process, over stdio or over HTTP, matches hits to the relevant ids
(:mod:`docs_mcp.eval.matching`) and reports recall, precision, MRR, nDCG and hit rate at each k
(:mod:`docs_mcp.eval.metrics`), latency, categories and deltas from a baseline report.
"""

from docs_mcp.eval.evaluate import DEFAULT_KS, EvalOptions, evaluate
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
