"""``agent_eval``: run scenarios with a real model, with (and, with ``compare``, without) the docs
server's tools, judge each run, and report.

Order of work: the scenario files are checked, the provider's key, endpoint and model probed, the
results file of an earlier run read; only then does the first scenario start. The docs server is
the one users run (``docs-mcp serve`` spawned over stdio or HTTP, or a server at a URL), reached
through a real MCP client session shared by the concurrent runs.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from docs_mcp.errors import ConfigError, DocsMcpError
from docs_mcp.eval.agent.assertions import check_all, passed
from docs_mcp.eval.agent.conversation import Provider
from docs_mcp.eval.agent.loop import ServerTools, activated, run_agent
from docs_mcp.eval.agent.prices import Price, load_prices
from docs_mcp.eval.agent.providers import make_provider
from docs_mcp.eval.agent.report import AgentReport, load_baseline
from docs_mcp.eval.agent.results import ARMS, ResultStore, RunResult
from docs_mcp.eval.agent.scenarios import Scenario, load_scenarios
from docs_mcp.eval.agent.workspace import Workspace
from docs_mcp.eval.sources import index_folder
from docs_mcp.eval.transports import Target, connect, sole_error

if TYPE_CHECKING:  # importing it imports openai: only when a provider is made
    from docs_mcp.openai_api import RetryPolicy

__all__ = ["AgentEvalOptions", "agent_eval"]

Progress = Callable[[str], None]
MAX_CONCURRENCY = 32


@dataclass(frozen=True)
class AgentEvalOptions:
    """What to run and against what.

    ``scenarios``: a scenario file or folder. The docs server: ``index`` (a build's ``--out``
    folder or ``oci://REF``) served over ``transport`` (``stdio`` or ``http``), or a running server
    at ``url``. ``provider`` (``openai``: any chat-completions endpoint at ``base_url``;
    ``anthropic``: the Messages API) and ``model``. ``compare``: each scenario also without the
    server. ``results``: the file each finished run is appended to and a rerun resumes from
    (``fresh``: start over). ``keep_workspaces``: keep each run's folder under this one.
    """

    scenarios: Path
    model: str
    index: str | Path | None = None
    url: str | None = None
    transport: str = "stdio"
    provider: str = "openai"
    base_url: str | None = None
    compare: bool = False
    concurrency: int = 1
    results: Path | None = None
    fresh: bool = False
    baseline: Path | None = None
    prices: Path | None = None
    only: Sequence[str] = ()
    keep_workspaces: Path | None = None
    retry: RetryPolicy | None = None


def agent_eval(options: AgentEvalOptions, progress: Progress | None = None) -> AgentReport:
    """Run every scenario of ``options`` and return the report (``progress`` hears one line per event).

    Raises:
        ConfigError: bad options, scenario files, price or baseline file; a missing key; an endpoint
            that does not answer or serves no such model (all before any scenario starts).
        IndexUnavailable, DocsMcpError: the docs server would not start or cannot be reached.
    """
    say = progress or (lambda line: None)
    _check(options)
    scenarios = load_scenarios(options.scenarios, options.only)
    price = load_prices(options.prices).get(options.model)
    baseline = load_baseline(options.baseline) if options.baseline else None
    provider = make_provider(options.provider, options.model, options.base_url, options.retry)
    provider.probe()
    say(f"{provider.name} {options.model}: ready; {len(scenarios)} scenarios")
    if price is None and any(scenario.limits.budget is not None for scenario in scenarios):
        say(f"no price for {options.model}: dollar budgets are not enforced (give one with --prices FILE)")
    store = ResultStore(options.results, options.fresh) if options.results else None
    arms = ARMS if options.compare else ARMS[:1]
    started = time.perf_counter()
    done = store.finished() if store else {}
    planned = [(scenario, arm, _blank(scenario, arm, provider).key) for scenario in scenarios for arm in arms]
    reused = [done[key] for _, _, key in planned if key in done]
    todo = [(scenario, arm) for scenario, arm, key in planned if key not in done]
    if reused:
        say(f"resuming: {len(reused)} runs already finished in {options.results}")
    with _server_source(options, needed=any(arm == "with" for _, arm in todo)) as target:
        fresh = anyio.run(_run_all, todo, provider, target, price, options, store, say)
    order = {key: n for n, (_, _, key) in enumerate(planned)}
    runs = sorted([*reused, *fresh], key=lambda result: order.get(result.key, len(order)))
    label = options.url or str(options.index)
    report = AgentReport(
        str(options.scenarios),
        label,
        provider.name,
        options.model,
        arms,
        runs,
        time.perf_counter() - started,
        len(reused),
        baseline,
    )
    return report


def _check(options: AgentEvalOptions) -> None:
    if (options.index is None) == (options.url is None):
        raise ConfigError(
            "name the docs server once: --index OUT (or oci://REF), or --url of a running server"
        )
    if options.transport not in ("stdio", "http"):
        raise ConfigError(f"--transport must be stdio or http (got {options.transport!r})")
    if not 1 <= options.concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"--concurrency takes 1 to {MAX_CONCURRENCY} (got {options.concurrency})")
    if not options.model:
        raise ConfigError("name the model: --model NAME (as the endpoint lists it)")


def _blank(scenario: Scenario, arm: str, provider: Provider) -> RunResult:
    return RunResult(scenario.id, scenario.category, arm, provider.name, provider.model, scenario.digest)


@contextmanager
def _server_source(options: AgentEvalOptions, needed: bool) -> Iterator[Target | None]:
    """Where the docs server is (None when no pending run needs it)."""
    if not needed:
        yield None
    elif options.url is not None:
        yield Target("http", url=options.url)
    else:
        assert options.index is not None
        with index_folder(options.index) as folder:
            yield Target("stdio" if options.transport == "stdio" else "http", index=folder.path)


async def _run_all(
    todo: list[tuple[Scenario, str]],
    provider: Provider,
    target: Target | None,
    price: Price | None,
    options: AgentEvalOptions,
    store: ResultStore | None,
    say: Progress,
) -> list[RunResult]:
    finished: list[RunResult] = []
    limiter = anyio.CapacityLimiter(options.concurrency)

    async def one(scenario: Scenario, arm: str, server: ServerTools | None) -> None:
        async with limiter:
            result = await _run_one(
                scenario, arm, provider, server if arm == "with" else None, price, options
            )
        finished.append(result)
        if store is not None:
            store.write(result)
        say(f"[{len(finished)}/{len(todo)}] {_line(result)}")

    try:
        async with _session(target, say) as server, anyio.create_task_group() as tasks:
            for scenario, arm in todo:
                tasks.start_soon(one, scenario, arm, server)
    except BaseExceptionGroup as group:
        raise sole_error(group) from None
    return finished


def _line(result: RunResult) -> str:
    """A run's progress line: ``id (arm): passed, stopped, 3 turns, 2/2 checks, 1.2 s``."""
    head = f"{result.scenario} ({result.arm}): {result.status}"
    if result.error:
        return f"{head}: {result.error}"
    held = sum(1 for check in result.checks if check["ok"])
    checks = f"{held}/{len(result.checks)} checks"
    return f"{head}, {result.stop}, {result.turns} turns, {checks}, {result.seconds:.1f} s"


@asynccontextmanager
async def _session(target: Target | None, say: Progress) -> AsyncIterator[ServerTools | None]:
    if target is None:
        yield None
        return
    async with connect(target) as client:
        server = await ServerTools.listed(client)
        say(f"docs server ({target.label}): tools {', '.join(spec.name for spec in server.specs)}")
        yield server


async def _run_one(
    scenario: Scenario,
    arm: str,
    provider: Provider,
    server: ServerTools | None,
    price: Price | None,
    options: AgentEvalOptions,
) -> RunResult:
    result = _blank(scenario, arm, provider)
    started = time.perf_counter()
    with _folder(options.keep_workspaces, scenario.id, arm) as root:
        workspace = Workspace(root)
        try:
            await anyio.to_thread.run_sync(workspace.prepare, scenario.files, scenario.setup, scenario.source)
            ended = await run_agent(scenario, provider, server, workspace, price)
        except DocsMcpError as error:  # a model API failing for good, a set-up that failed
            result.stop, result.error = "error", str(error)
            result.seconds = time.perf_counter() - started
            return result
        checks = await anyio.to_thread.run_sync(check_all, scenario.expect, ended.answer, workspace)
    result.status = "passed" if passed(checks) else "failed"
    result.stop, result.answer, result.turns = ended.stop, ended.answer, ended.turns
    result.input_tokens, result.output_tokens, result.cost = (
        ended.input_tokens,
        ended.output_tokens,
        ended.cost,
    )
    result.tool_calls = dict(sorted(ended.tool_calls.items()))
    result.tool_errors, result.retries = ended.tool_errors, ended.retries
    result.activated = activated(ended.tool_calls, server)
    result.checks = [check.to_dict() for check in checks]
    result.seconds = round(time.perf_counter() - started, 3)
    return result


@contextmanager
def _folder(keep: Path | None, scenario: str, arm: str) -> Iterator[Path]:
    if keep is not None:
        root = keep / arm / scenario
        if root.exists():  # the folder of this scenario's earlier run (one that ended in an error)
            shutil.rmtree(root)
        root.mkdir(parents=True)
        yield root
        return
    with tempfile.TemporaryDirectory(prefix=f"docs-mcp-agent-{scenario}-") as scratch:
        yield Path(scratch)
