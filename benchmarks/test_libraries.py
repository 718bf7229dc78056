"""Many libraries in one server (issues 22 and 34): search latency, resident memory and time to ready
for 1, 10 and 100 indexes, each a real ``docs-mcp serve --transport http`` process.

Two kinds of 100 libraries, full text:
- copies of the claude-docs index, each its own folder: every library holds the same answers, so
  each merged question ties across all of them (the worst case for skipping libraries by bound);
- distinct libraries: claude-docs and 99 slices of the SDK corpora (each SDK's files in path order,
  cut into consecutive slices that keep its ``.docs-mcp.json``), like a hub of many small SDKs.

Each kind is also served as one library holding the same docs (``_same``: claude-docs and every
slice's folder, or the 100 copies' folders, in one docs folder, built as one index): a merged search
over the 100 libraries against a search of the same rows in one library is what the number of
libraries costs, apart from what the rows cost (the 99 slices are 36 times claude-docs' rows, with
the SDK corpora's facets, kinds and copies).

The questions (claude-docs's, and the SDK set's for the distinct hub) are asked of one library
(``library`` given) and of every library at once. Each merged search is asked of servers that use
the union of the libraries (``server.hub.union``) to route, to rank by its own scores or to rank
with each hit rescored as its library scores it, that skip
libraries by score bound without a union (``DOCS_MCP_UNION=off``), and that ask every library
(``DOCS_MCP_TEST_ASK_EVERY_LIBRARY``, as before score bounds); the figures are taken once each
server's union is made, and the servers' turns are interleaved so that a busy machine slows them
alike. Run:
``.venv/bin/python -m pytest benchmarks/test_libraries.py --benchmark-only -s`` (``DOCS_MCP_BENCH_KINDS``
takes fewer of the kinds of 100-library servers, e.g. ``rescore,rank``).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.serving import Running, docs_mcp, http_process, memory_mib
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server.hub.union import UNION_ENV
from docs_mcp.server.tools.hub_merge import ASK_EVERY_LIBRARY_ENV
from docs_mcp.store.cache_home import CACHE_ENV
from testkit.evaldata_sets import claude_docs_queries, question_texts
from testkit.library_set import SDK_QUERIES

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]
COUNTS = (1, 10, 100)
MANY = max(COUNTS)
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
CONFIG = ".docs-mcp.json"
# The union mode (DOCS_MCP_UNION) of each kind of server: "bound" and "every" make no union.
_UNION_OF = {"route": "route", "rank": "rank", "rescore": "rescore", "bound": "off", "every": "off"}
# The kinds of 100-library servers compared with the routing one (all by default); a run may take
# fewer (``DOCS_MCP_BENCH_KINDS=rescore,rank``): the machine has two cores.
KINDS_ENV = "DOCS_MCP_BENCH_KINDS"
_KINDS = ("rescore", "rank", "bound", "every")


@contextmanager
def _hub(folders: list[Path], *, every: bool = False, union: str = "route") -> Iterator[Running]:
    """``serve`` with one ``--index libN=FOLDER`` each, once every index is open (``every``: a merged
    search asks every library; ``union``: how merged searches use the union, ``DOCS_MCP_UNION``)."""
    named = [part for n, folder in enumerate(folders) for part in ("--index", f"lib{n}={folder}")]
    before = {name: os.environ.get(name) for name in (ASK_EVERY_LIBRARY_ENV, UNION_ENV)}
    if every:
        os.environ[ASK_EVERY_LIBRARY_ENV] = "1"
    os.environ[UNION_ENV] = union
    try:
        process = http_process(docs_mcp("serve", *named, "--transport", "http", "--port", "0"))
        running = process.__enter__()
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    try:
        yield running
    finally:
        process.__exit__(None, None, None)


def _union_ready(client: httpx.Client, running: Running) -> float:
    """Seconds until the server's union is open (``/healthz`` names it; 0.0 for a server without)."""
    started = time.perf_counter()
    health = running.url.removesuffix("/mcp") + "/healthz"
    while True:
        report = client.get(health).json()
        if "union" not in report or report["union"]["union"] is not None:
            return time.perf_counter() - started
        time.sleep(0.1)


def _ask(client: httpx.Client, url: str, arguments: dict[str, object]) -> float:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    body["params"] = {"name": "search_docs", "arguments": arguments}
    started = time.perf_counter()
    response = client.post(url, content=json.dumps(body))
    seconds = time.perf_counter() - started
    assert response.status_code == 200 and not response.json()["result"].get("isError"), response.text[:300]
    return seconds


def _percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


def _sdk_slices(corpora_docs: Path, root: Path, count: int) -> list[Path]:
    """``count`` docs folders: each SDK of the corpora (a folder with its own config) cut into
    consecutive slices of its files in path order, slices shared out by the SDKs' file counts."""
    sdks = sorted(config.parent for config in corpora_docs.rglob(CONFIG) if config.parent != corpora_docs)
    files = {sdk: sorted(p for p in sdk.rglob("*.md") if p.is_file()) for sdk in sdks}
    total = sum(len(found) for found in files.values())
    shares = {sdk: max(1, round(count * len(files[sdk]) / total)) for sdk in sdks}
    shares[sdks[-1]] += count - sum(shares.values())
    folders = []
    for sdk in sdks:
        found, parts = files[sdk], shares[sdk]
        for part in range(parts):
            folder = root / f"{sdk.relative_to(corpora_docs).as_posix().replace('/', '-')}-{part}"
            for path in found[part * len(found) // parts : (part + 1) * len(found) // parts]:
                target = folder / path.relative_to(sdk)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
            shutil.copyfile(sdk / CONFIG, folder / CONFIG)
            folders.append(folder)
    return folders


def _distinct(claude_index: Path, slices: list[Path], root: Path) -> list[Path]:
    """claude-docs' index and one index of each of ``slices`` (docs folders), built under ``root``."""
    indexes = [claude_index]
    for docs in slices:
        out = root / "out" / docs.name
        build(BuildOptions(docs_dir=docs, out=out))
        indexes.append(out)
    return indexes


def _one_library(folders: dict[str, Path], root: Path) -> Path:
    """One index of the docs ``folders`` (name -> docs folder), each copied under its name into one
    docs folder (each keeps its own ``.docs-mcp.json``)."""
    for name, docs in folders.items():
        shutil.copytree(docs, root / "docs" / name)
    build(BuildOptions(docs_dir=root / "docs", out=root / "out"))
    return root / "out"


def test_search_and_memory_for_1_10_and_100_libraries(
    benchmark: BenchmarkFixture,
    claude_fulltext_index: Path,
    claude_docs: Path,
    corpora_docs: Path,
    evaldata_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))  # the servers' unions, not the user's cache
    copies = []
    for n in range(MANY):
        folder = tmp_path / "copies" / f"lib{n}"
        shutil.copytree(claude_fulltext_index, folder)
        copies.append(folder)
    slices = _sdk_slices(corpora_docs, tmp_path / "distinct" / "docs", MANY - 1)
    distinct = _distinct(claude_fulltext_index, slices, tmp_path / "distinct")
    same = {
        "distinct": _one_library(
            {"claude-docs": claude_docs} | {p.name: p for p in slices}, tmp_path / "same"
        ),
        "copies": _one_library({f"copy{n}": claude_docs for n in range(MANY)}, tmp_path / "same-copies"),
    }
    claude = question_texts(claude_docs_queries(evaldata_dir))
    sdk = question_texts(SDK_QUERIES)
    # name -> (folders, ask every library, union mode): "_bound" is the exact path of before the
    # union (skipping by score bound), "_every" asks every library, "_rank" answers from the union's
    # own ranking; the unsuffixed 100 route through the union (the default).
    kinds = [k for k in os.environ.get(KINDS_ENV, ",".join(_KINDS)).split(",") if k in _KINDS]
    hubs = {f"copies_{n}": (copies[:n], False, "route") for n in COUNTS}
    hubs |= {f"copies_{MANY}_{kind}": (copies, kind == "every", kind) for kind in kinds}
    hubs |= {"distinct_1": (distinct[:1], False, "route"), f"distinct_{MANY}": (distinct, False, "route")}
    hubs |= {f"distinct_{MANY}_{kind}": (distinct, kind == "every", kind) for kind in kinds}
    hubs |= {f"{kind}_same": ([index], False, "route") for kind, index in same.items()}
    given: dict[str, list[float]] = {name: [] for name in hubs}
    merged: dict[str, list[float]] = {name: [] for name in hubs}
    figures: dict[str, float] = {}

    with _hub(copies[:1]):  # a first start pays for the cold file cache: not part of the figures
        pass

    def run() -> None:
        with ExitStack() as stack, httpx.Client(headers=HEADERS, timeout=120) as client:
            servers = {
                name: stack.enter_context(_hub(folders, every=every, union=_UNION_OF[mode]))
                for name, (folders, every, mode) in hubs.items()
            }
            for name, running in servers.items():
                figures[f"union_ready_s_{name}"] = round(_union_ready(client, running), 2)
            for name, running in servers.items():
                _ask(client, running.url, {"query": "warm up", "library": "lib0"})
                figures[f"listening_s_{name}"] = round(running.listening_s, 2)  # tools/list answered
                figures[f"ready_s_{name}"] = round(running.ready_s, 2)  # every index open
                figures[f"rss_mib_{name}"] = round(memory_mib(running.process.pid), 1)
            for question in claude + sdk:  # interleaved: each server's turn under the same load
                for name, running in servers.items():
                    if name.startswith("copies") and question not in claude:
                        continue  # the copies hold claude-docs only
                    given[name].append(_ask(client, running.url, {"query": question, "library": "lib0"}))
                    merged[name].append(_ask(client, running.url, {"query": question}))
            for name, running in servers.items():
                figures[f"rss_mib_after_{name}"] = round(memory_mib(running.process.pid), 1)

    benchmark.pedantic(run, rounds=1, iterations=1)
    for name in hubs:
        p50, p95 = _percentiles(given[name])
        m50, m95 = _percentiles(merged[name])
        figures.update({f"p50_ms_{name}": round(p50, 2), f"p95_ms_{name}": round(p95, 2)})
        figures.update({f"merged_p50_ms_{name}": round(m50, 2), f"merged_p95_ms_{name}": round(m95, 2)})
    # With `library` given, 100 libraries answer as one (the hub only routes).
    figures["p50_ratio_100_over_1"] = round(figures[f"p50_ms_copies_{MANY}"] / figures["p50_ms_copies_1"], 3)
    # Without it: the merged search of 100 distinct libraries over one library's, and what skipping by
    # bound saves against asking every library, on distinct libraries and on copies.
    figures["merged_p50_ratio_distinct_100_over_1"] = round(
        figures[f"merged_p50_ms_distinct_{MANY}"] / figures["merged_p50_ms_distinct_1"], 3
    )
    figures["merged_p50_ratio_copies_100_over_1"] = round(
        figures[f"merged_p50_ms_copies_{MANY}"] / figures["merged_p50_ms_copies_1"], 3
    )
    for kind in ("distinct", "copies"):
        if {"every", "bound"} <= set(kinds):
            figures[f"cutoff_speedup_{kind}_100"] = round(
                figures[f"merged_p50_ms_{kind}_{MANY}_every"] / figures[f"merged_p50_ms_{kind}_{MANY}_bound"],
                3,
            )
        # The union against one library and against the exact path of before it (skipping by bound).
        for mode in ("route", "rank", "rescore"):
            name = f"{kind}_{MANY}" if mode == "route" else f"{kind}_{MANY}_{mode}"
            if name not in hubs:
                continue
            if "bound" in kinds:
                figures[f"union_{mode}_speedup_{kind}_100"] = round(
                    figures[f"merged_p50_ms_{kind}_{MANY}_bound"] / figures[f"merged_p50_ms_{name}"], 3
                )
            figures[f"merged_p50_ratio_{kind}_100_{mode}_over_1"] = round(
                figures[f"merged_p50_ms_{name}"] / figures[f"merged_p50_ms_{kind}_1"], 3
            )
            # What the number of libraries costs: the same rows searched as one library.
            figures[f"merged_p50_ratio_{kind}_100_{mode}_over_same"] = round(
                figures[f"merged_p50_ms_{name}"] / figures[f"merged_p50_ms_{kind}_same"], 3
            )
        if {"rank", "rescore"} <= set(kinds):  # what keeping each library's scores costs over rank
            rescore, rank = (figures[f"merged_p50_ms_{kind}_{MANY}_{mode}"] for mode in ("rescore", "rank"))
            figures[f"rescore_over_rank_{kind}_100"] = round(rescore / rank, 3)
    figures["rss_mib_per_added_index"] = round(
        (figures[f"rss_mib_after_copies_{MANY}"] - figures["rss_mib_after_copies_1"]) / (MANY - 1), 2
    )
    benchmark.extra_info.update(figures)
    print("\n" + "\n".join(f"{key} {value}" for key, value in figures.items()))
