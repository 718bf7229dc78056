"""Our replacements of library code against the library, measured in the same run.

Each module that replaces library code for speed (or, for ``swap.py``, for atomicity) declares
``MEASURED_WITH``: the library versions these figures were taken with. ``tests/test_replacements.py``
fails when an installed version leaves that range: then re-run this file, and keep the replacement
only if it still wins (update the figures in its docstring and ``MEASURED_WITH``), else go back to the
library. Release gates on the ratios are in ``thresholds.toml``.

Run: ``.venv/bin/python -m pytest benchmarks/test_replacements.py -p no:cacheprovider -s``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from docs_mcp.chunk.chunk_pool import ChunkPool
from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.inline_text import inline_plain_text
from docs_mcp.parse.markdown import _parser
from docs_mcp.server.tools.arguments import ArgumentValidator
from docs_mcp.server.tools.tool_schema import search_input_schema
from docs_mcp.store.swap import exchange_dirs

REPO_ROOT = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _alternate(variants: dict[str, Callable[[], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each variant, the variants run in turn ``rounds`` times (same machine load)."""
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(rounds):
        for name, run in variants.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def _report(benchmark: Any, what: str, medians: dict[str, float], ours: str, library: str) -> None:
    speedup = medians[library] / medians[ours]
    benchmark.extra_info.update({f"{k}_s": round(v, 4) for k, v in medians.items()})
    benchmark.extra_info["speedup"] = round(speedup, 2)
    shown = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in medians.items())
    print(f"\n{what}: {shown}; ours {speedup:.2f}x faster than the library")


@pytest.fixture(scope="module")
def corpora_sources(evaldata_dir: Path) -> list[tuple[str, str]]:
    """Every 4th markdown file of the SDK corpora (a quarter keeps each round to seconds)."""
    files = sorted((evaldata_dir / "corpora").rglob("*.md"))[::4]
    return [(f.name, f.read_text(encoding="utf-8")) for f in files]


@pytest.fixture(scope="module")
def corpora_all_sources(evaldata_dir: Path) -> list[tuple[str, str]]:
    """Every markdown file of the SDK corpora: what ``load_corpus`` hands the pool (from
    ``PARALLEL_THRESHOLD`` files on). On a quarter of it, one process needs under a second and the
    helpers' start-up (imports, pickling) is most of what is measured."""
    files = sorted((evaldata_dir / "corpora").rglob("*.md"))
    return [(f.name, f.read_text(encoding="utf-8")) for f in files]


# -- authoring/md_table.py: the GFM table block rule ---------------------------------------------------


def test_md_table_against_markdown_its_table_rule(
    benchmark: Any, corpora_sources: list[tuple[str, str]]
) -> None:
    library = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(front_matter_plugin)
    library.core.ruler.disable(["inline", "text_join"])  # block structure only, as ours
    ours = _parser()
    with_tables = [source for _path, source in corpora_sources if "|-" in source or "| -" in source]
    medians = _alternate(
        {
            "markdown_it": lambda: [library.parse(s) for s in with_tables],
            "md_table": lambda: [ours.parse(s) for s in with_tables],
        },
        rounds=3,
    )
    benchmark.pedantic(lambda: [ours.parse(s) for s in with_tables], rounds=1, iterations=1)
    benchmark.extra_info["files"] = len(with_tables)
    _report(
        benchmark, f"block parse of {len(with_tables)} files with tables", medians, "md_table", "markdown_it"
    )


# -- parse/inline_text.py: plain text of inline markdown -------------------------------------------


def _library_inline_text(md: MarkdownIt, source: str) -> str:
    """Plain text from markdown-it's inline parser: what ``inline_plain_text`` stands in for."""
    parts: list[str] = []
    stack: list[Token] = list(reversed(md.parseInline(source)[0].children or []))
    while stack:
        token = stack.pop()
        if token.type in ("text", "code_inline"):
            parts.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif token.children:
            stack.extend(reversed(token.children))
    return "".join(parts)


def test_inline_text_against_markdown_its_inline_parser(
    benchmark: Any, corpora_sources: list[tuple[str, str]]
) -> None:
    blocks = _parser()
    inline_sources = [
        token.content
        for _path, source in corpora_sources
        for token in blocks.parse(source)
        if token.type == "inline" and token.content
    ]
    library = MarkdownIt("commonmark").enable(["strikethrough"])
    medians = _alternate(
        {
            "markdown_it": lambda: [_library_inline_text(library, s) for s in inline_sources],
            "inline_text": lambda: [inline_plain_text(s) for s in inline_sources],
        },
        rounds=3,
    )
    benchmark.pedantic(lambda: [inline_plain_text(s) for s in inline_sources], rounds=1, iterations=1)
    benchmark.extra_info["inline_sources"] = len(inline_sources)
    _report(
        benchmark,
        f"plain text of {len(inline_sources)} inline sources",
        medians,
        "inline_text",
        "markdown_it",
    )


# -- chunk/chunk_pool.py: chunking in helper processes ---------------------------------------------


def _chunk_with_executor(jobs: list[tuple[str, str, FileSettings]]) -> int:
    # The standard library's pool, with the start method that is safe in a threaded caller.
    import multiprocessing

    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("forkserver")) as pool:
        return sum(len(c.chunks) for c in pool.map(chunk_file, *zip(*jobs, strict=True), chunksize=64))


def _chunk_with_pool(jobs: list[tuple[str, str, FileSettings]], workers: int) -> int:
    with ChunkPool(workers) as pool:
        return sum(len(c.chunks) for c in pool.chunk(jobs))


def test_chunk_pool_against_the_standard_process_pool(
    benchmark: Any, corpora_all_sources: list[tuple[str, str]]
) -> None:
    jobs = [(source, path, FileSettings()) for path, source in corpora_all_sources]
    medians = _alternate(
        {
            "one_process": lambda: _chunk_with_pool(jobs, 1),
            "process_pool_executor": lambda: _chunk_with_executor(jobs),
            "chunk_pool": lambda: _chunk_with_pool(jobs, 2),
        },
        rounds=3,
    )
    benchmark.pedantic(lambda: _chunk_with_pool(jobs, 2), rounds=1, iterations=1)
    benchmark.extra_info["files"] = len(jobs)
    benchmark.extra_info["speedup_over_one_process"] = round(
        medians["one_process"] / medians["chunk_pool"], 2
    )
    _report(
        benchmark, f"chunking {len(jobs)} files, 2 workers", medians, "chunk_pool", "process_pool_executor"
    )


# -- store/swap.py: the atomic exchange ----------------------------------------------------------------


def _two_renames(new: Path, current: Path) -> None:
    """What the standard library offers: park the old folder, move the new one in."""
    parked = new.with_name(new.name + ".old")
    os.replace(current, parked)
    os.replace(new, current)
    os.replace(parked, new)


def _reader_misses(tmp: Path, swap: Callable[[Path, Path], None], swaps: int) -> int:
    """Swap two index folders ``swaps`` times while a reader opens OUT/manifest; how often it failed."""
    out, staging = tmp / "out", tmp / "staging"
    for folder in (out, staging):
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text("{}")
    misses = 0
    stop = threading.Event()

    def read() -> None:
        nonlocal misses
        while not stop.is_set():
            try:
                (out / "manifest.json").read_bytes()
            except FileNotFoundError:
                misses += 1

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for _ in range(swaps):
            swap(staging, out)
            time.sleep(0)  # let the reader run between swaps
    finally:
        stop.set()
        reader.join()
    return misses


def test_swap_exchange_leaves_no_moment_without_an_index(benchmark: Any, tmp_path: Path) -> None:
    swaps = 2000
    misses = {
        "renameat2_exchange": _reader_misses(tmp_path / "a", exchange_dirs, swaps),
        "two_renames": _reader_misses(tmp_path / "b", _two_renames, swaps),
    }
    benchmark.pedantic(lambda: exchange_dirs(tmp_path / "a" / "staging", tmp_path / "a" / "out"), rounds=50)
    benchmark.extra_info.update({f"reader_misses_{k}": v for k, v in misses.items()})
    print(f"\nreaders that found no index during {swaps} swaps: {misses}")
    assert misses["renameat2_exchange"] == 0


# -- server/arguments.py: the direct check of valid arguments ------------------------------------------


def _cpu_of(code: str) -> float:
    process = subprocess.Popen([sys.executable, "-c", code])
    _pid, _status, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return usage.ru_utime + usage.ru_stime


def test_argument_fast_path_against_jsonschema(benchmark: Any) -> None:
    schema = search_input_schema({"language": ["go", "python", "typescript"], "scope": ["sdk-specific"]})
    calls = [{"query": f"retry {n}", "language": "python", "limit": 1 + n % 50} for n in range(2000)]
    ours = ArgumentValidator("search_docs", schema)
    library = ArgumentValidator("search_docs", schema)
    library._surely_valid = None  # every call through jsonschema, as without the direct check
    medians = _alternate(
        {
            "jsonschema": lambda: [library.validate(c) for c in calls],
            "direct_check": lambda: [ours.validate(c) for c in calls],
        },
        rounds=5,
    )
    benchmark.pedantic(lambda: [ours.validate(c) for c in calls], rounds=3, iterations=1)
    imports = {"pass": [], "jsonschema": []}
    for _ in range(5):
        imports["pass"].append(_cpu_of("pass"))
        imports["jsonschema"].append(_cpu_of("import jsonschema"))
    import_ms = (statistics.median(imports["jsonschema"]) - statistics.median(imports["pass"])) * 1000
    benchmark.extra_info["jsonschema_import_cpu_ms"] = round(import_ms, 1)
    _report(benchmark, "2000 valid search_docs calls", medians, "direct_check", "jsonschema")
    print(f"importing jsonschema (kept out of the cold start): {import_ms:.0f} ms CPU")


# -- import_cuts: what serve leaves out of lancedb and the MCP SDK ---------------------------------------

# What the server imports before its first answer (gc paused, as serve does: docs_mcp.server.startup).
_SERVER_IMPORTS = "import lancedb, mcp.server.lowlevel, mcp.server.stdio, mcp_types"


def _with_cuts(left_out: tuple[str, ...]) -> str:
    """The server's imports after ``docs_mcp.import_cuts.install()``, the cuts ``left_out`` made to
    step aside as an unmeasured library version makes them."""
    return (
        "import gc\n"
        "gc.disable()\n"
        "import docs_mcp.import_cuts as cuts\n"
        f"for name in {left_out!r}:\n"
        "    cuts.CUTS[name] = {'docs-mcp-left-out': ((0, 0), (0, 0))}\n"
        "cuts.install()\n"
        f"{_SERVER_IMPORTS}\n"
    )


def test_import_cuts_each_against_leaving_it_out(benchmark: Any) -> None:
    """CPU seconds of the server's imports with every cut, with each one left out, and plain; the
    variants alternate in each round. Each cut's gate (``thresholds.toml``): leaving it out costs."""
    from docs_mcp.import_cuts import CUTS

    left_out = list(CUTS)  # on Python 3.12+ "overrides" does nothing: leaving it out changes nothing
    variants = {"all": _with_cuts(()), **{f"without_{n}": _with_cuts((n,)) for n in left_out}}
    variants["plain"] = "import gc\ngc.disable()\n" + _SERVER_IMPORTS
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    for round_number in range(12):
        order = list(variants) if round_number % 2 == 0 else list(variants)[::-1]
        for name in order:
            cpu[name].append(_cpu_of(variants[name]))
    medians = {name: statistics.median(values[1:]) for name, values in cpu.items()}  # [0] warms up
    benchmark.pedantic(lambda: _cpu_of(variants["all"]), rounds=1, iterations=1)
    for name in left_out:
        benchmark.extra_info[f"without_{name}_over_all"] = round(
            medians[f"without_{name}"] / medians["all"], 3
        )
    _report(benchmark, "the server's imports (CPU of a fresh process)", medians, "all", "plain")
