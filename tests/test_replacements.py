"""Hand-written replacements of library code were measured against one version of that library.

Each such module declares ``MEASURED_WITH`` (distribution -> "major.minor"). When an installed version
differs, this fails, naming the benchmark to re-run: keep the replacement only if it still wins
(update its docstring's figures and ``MEASURED_WITH``), else go back to the library. ``python`` is
the lowest Python it was measured on: every newer one the package supports passes.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import platform

import pytest

_BENCH = "benchmarks/test_replacements.py::"
# module -> the benchmark that compares it with the library it replaces
REPLACEMENTS = {
    "docs_mcp.parse.md_table": _BENCH + "test_md_table_against_markdown_its_table_rule",
    "docs_mcp.parse.inline_text": _BENCH + "test_inline_text_against_markdown_its_inline_parser",
    "docs_mcp.chunk.chunk_pool": _BENCH + "test_chunk_pool_against_the_standard_process_pool",
    "docs_mcp.store.swap": _BENCH + "test_swap_exchange_leaves_no_moment_without_an_index",
    "docs_mcp.server.transport.stdio": "benchmarks/test_server.py::test_stdio_transport_against_the_sdks",
    "docs_mcp.server.tools.arguments": _BENCH + "test_argument_fast_path_against_jsonschema",
    "docs_mcp.import_cuts": _BENCH + "test_import_cuts_each_against_leaving_it_out",
}


def _installed(distribution: str) -> str:
    if distribution == "python":
        return platform.python_version()
    return importlib.metadata.version(distribution)


def _minor(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:2])


@pytest.mark.parametrize("module_name", sorted(REPLACEMENTS))
def test_a_replacement_runs_against_the_library_versions_it_was_measured_with(module_name: str) -> None:
    measured: dict[str, str] = importlib.import_module(module_name).MEASURED_WITH
    assert measured, f"{module_name} declares no MEASURED_WITH"
    for distribution, version in measured.items():
        installed = _installed(distribution)
        if distribution == "python":
            # The interpreter is the user's choice within requires-python, not a pinned library. The
            # figures were taken on the lowest Python supported; the replacements of standard-library
            # code (swap, chunk_pool) are kept for what no newer Python has either: an atomic exchange,
            # a process pool safe in a threaded caller that does not re-import __main__.
            assert _minor(installed) >= _minor(version), f"{module_name} needs Python {version}+"
            continue
        assert installed == version or installed.startswith(version + "."), (
            f"{module_name} replaces library code and was measured with {distribution} {version}; "
            f"{installed} is installed. Re-run {REPLACEMENTS[module_name]} (-s prints both figures): "
            "keep the replacement only if it still wins, updating the figures in its docstring and "
            f"MEASURED_WITH; otherwise go back to {distribution}."
        )
