"""``evaluate``: score an index's retrieval on labelled queries through the MCP tools agents call."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio

from docs_mcp.errors import ConfigError
from docs_mcp.eval.baseline import Baseline, compare, load_baseline
from docs_mcp.eval.matching import MATCHINGS, Matching
from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.eval.report import EvalReport, RunReport
from docs_mcp.eval.runner import run_queries
from docs_mcp.eval.sources import Source, built_index, index_folder
from docs_mcp.eval.transports import Target, connect, parse_transport, sole_error
from docs_mcp.search.types import SEARCH_MODES, SearchMode

__all__ = ["DEFAULT_KS", "MAX_K", "EvalOptions", "evaluate"]

DEFAULT_KS = (1, 3, 5, 10)
MAX_K = 200


@dataclass(frozen=True)
class EvalOptions:
    """What to score and how. Exactly one of ``index``, ``build`` or a URL ``transport`` names the index.

    ``index``: a ``docs-mcp build`` output folder or ``oci://REF``. ``build``: a docs folder built
    into a temporary index first; ``compare`` then builds one per embedding provider and scores
    them side by side. ``transport``: ``inproc`` (default), ``stdio``, ``http`` (a server started on
    127.0.0.1) or the URL of a running server. ``mode`` forces a search mode (inproc only: the MCP
    tools choose hybrid whenever the index has vectors). ``match``: ``sections`` (a section's parts
    and the same section under ancestor headings count) or ``exact`` chunk ids only.
    """

    queries: Path
    index: str | Path | None = None
    build: Path | None = None
    compare: Sequence[str] = ()
    ks: Sequence[int] = DEFAULT_KS
    transport: str = "inproc"
    mode: SearchMode | None = None
    match: Matching = "sections"
    baseline: Path | None = None


def evaluate(options: EvalOptions) -> EvalReport:
    """Run every query of ``options.queries`` through ``search_docs`` and score the rankings.

    Raises:
        ConfigError: contradictory options, a bad query or baseline file, or filters the index lacks.
        IndexUnavailable: the index is missing or unreadable (or its server would not start).
        QueryError: the server rejected a search.
        ValidationFailed, EmbeddingError: ``build`` could not build the docs.
    """
    transport, url = parse_transport(options.transport)
    ks = _check(options, url)
    queries = load_queries(options.queries)
    runs: list[RunReport] = []
    providers: list[str | None] = [*options.compare] or [None]
    for provider in providers:
        with _source(options, url, provider) as found:
            target = Target(transport, index=found.path if found else None, url=url, mode=options.mode)
            label = found.label if found else (url or "")
            baseline = load_baseline(options.baseline, label) if options.baseline else None
            runs.append(anyio.run(_run, target, label, queries, ks, options.match, baseline))
    return EvalReport(str(options.queries), runs)


async def _run(
    target: Target,
    label: str,
    queries: list[LabelledQuery],
    ks: tuple[int, ...],
    matching: Matching,
    baseline: Baseline | None,
) -> RunReport:
    started = time.perf_counter()
    try:
        async with connect(target) as client:
            runs = await run_queries(client, queries, ks, matching)
    except BaseExceptionGroup as group:
        raise sole_error(group) from None
    index = target.url or str(target.index)
    report = RunReport(label, index, target.label, ks, runs, time.perf_counter() - started)
    if baseline is None:
        return report
    comparison = compare(baseline, report.metrics, report.latency(), runs)
    return RunReport(label, index, target.label, ks, runs, report.seconds, comparison)


@contextmanager
def _source(options: EvalOptions, url: str | None, provider: str | None) -> Iterator[Source | None]:
    """The index of one run (None: the server at ``url`` has it)."""
    if url is not None:
        yield None
    elif options.build is not None:
        with built_index(options.build, provider) as built:
            yield built
    else:
        assert options.index is not None
        with index_folder(options.index) as folder:
            yield folder


def _check(options: EvalOptions, url: str | None) -> tuple[int, ...]:
    """The sorted, distinct ks; raises ``ConfigError`` for options that contradict each other."""
    if sum([options.index is not None, options.build is not None, url is not None]) != 1:
        raise ConfigError(
            "name the index once: --index OUT (or oci://REF), --build DOCS_DIR, or --transport URL"
        )
    if options.compare and options.build is None:
        raise ConfigError("--compare builds one index per provider: it needs --build DOCS_DIR")
    if options.match not in MATCHINGS:
        raise ConfigError(f"--match must be one of {', '.join(MATCHINGS)} (got {options.match!r})")
    if options.mode is not None and options.mode not in SEARCH_MODES:
        raise ConfigError(f"--mode must be one of {', '.join(SEARCH_MODES)} (got {options.mode!r})")
    if options.mode is not None and options.transport != "inproc":
        raise ConfigError(
            "--mode needs --transport inproc: over stdio and HTTP the server chooses "
            "(hybrid when the index has vectors, else full text)"
        )
    if not options.ks or any(
        isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K for k in options.ks
    ):
        raise ConfigError(f"--k takes whole numbers from 1 to {MAX_K}, e.g. --k 1,3,5,10")
    return tuple(sorted(set(options.ks)))
