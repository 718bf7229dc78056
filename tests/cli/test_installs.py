"""Every command starts on every install: the CLI run in subprocesses where an extra's modules cannot
be imported (``sys.modules[name] = None``, as if the extra were not installed).

The fresh-venv check (``python3 -m venv`` + ``pip install 'docs-mcp-index[EXTRA]'``, see docs/cli.md
"Installs and extras") needs the network and minutes per extra; this is its stand-in inside the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from docs_mcp.extras import EXTRA_OF_MODULE, install_line
from docs_mcp.indexing.pipeline import BuildOptions, build
from testkit.index_fixtures import write_docs

REPO_ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(120)

HEAVY = ("lancedb", "pyarrow", "markdown_it", "mcp", "uvicorn", "starlette")
# mcp 2.3's low-level server imports starlette, sse_starlette and through it uvicorn's modules
# itself (mcp/server/lowlevel/server.py -> mcp.server.streamable_http -> sse_starlette); what stays
# out is ours: the HTTP transport module and the event loop and parser uvicorn would pick.
HTTP_ONLY = ("docs_mcp.server.transport.http", "httptools", "uvloop")


def _extras_except(*kept: str) -> list[str]:
    return sorted(module for module, extra in EXTRA_OF_MODULE.items() if extra not in kept)


# Run by every interpreter started with its folder on PYTHONPATH (site imports ``sitecustomize``): the
# CLI's and the processes it starts (a build's chunking helpers), each without the extras.
_BLOCKING_SITE = (
    "import json, os, sys\n"
    "for name in json.loads(os.environ.get('DOCS_MCP_TEST_BLOCKED', '[]')): sys.modules[name] = None\n"
)


def _run(args: list[str], *, blocked: list[str], stdin: str = "") -> tuple[int, str, str, list[str]]:
    """Run ``docs-mcp ARGS`` with ``blocked`` modules unimportable, in it and in every process it
    starts; (exit code, stdout, stderr, the top-level packages and docs_mcp modules it had loaded at
    exit)."""
    probe = (
        "import atexit, json, sys\n"
        "def report():\n"
        "    loaded = [m for m, module in sys.modules.items() if module is not None]\n"
        "    shown = sorted(m for m in loaded if m.startswith('docs_mcp.') or '.' not in m)\n"
        "    print('MODULES ' + json.dumps(shown), file=sys.stderr)\n"
        "atexit.register(report)\n"
        "from docs_mcp.cli.main import main\n"
        f"sys.exit(main({args!r}))\n"
    )
    with tempfile.TemporaryDirectory() as site:
        (Path(site) / "sitecustomize.py").write_text(_BLOCKING_SITE)
        path = [site, str(REPO_ROOT / "src"), os.environ.get("PYTHONPATH", "")]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(path),
            "DOCS_MCP_TEST_BLOCKED": json.dumps(blocked),
        }
        done = subprocess.run(
            [sys.executable, "-c", probe], input=stdin, capture_output=True, text=True, env=env, timeout=100
        )
    lines = done.stderr.splitlines()
    modules = (
        json.loads(lines[-1].removeprefix("MODULES ")) if lines and lines[-1].startswith("MODULES ") else []
    )
    return done.returncode, done.stdout, "\n".join(lines[:-1]), modules


@pytest.fixture(scope="module")
def built_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("installs")
    out = root / "out"
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=out))
    return out


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_work_on_the_base_install_and_import_nothing_heavy(flag: str) -> None:
    code, out, _err, modules = _run([flag], blocked=_extras_except())
    assert code == 0
    assert "docs-mcp" in out
    assert [m for m in modules if m in HEAVY] == []


def test_help_lists_every_command_with_its_summary() -> None:
    _code, out, _err, _modules = _run(["--help"], blocked=[])
    for command in ("validate", "chunk", "build", "search", "get", "serve", "eval"):
        assert f"    {command} " in out
    assert "".join(install_line("build").split()) in "".join(out.split())  # the help wraps lines


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["validate", "--docs-dir", "."], "build"),
        (["fix", "--docs-dir", "."], "build"),
        (["chunk", "--docs-dir", "."], "build"),
        (["build", "--docs-dir", ".", "--out", "never-written"], "build"),
    ],
)
def test_a_command_whose_extra_is_missing_exits_2_naming_it_in_one_line(args: list[str], extra: str) -> None:
    code, out, err, _modules = _run(args, blocked=_extras_except())
    assert code == 2
    assert out == ""
    assert err.splitlines() == [err.strip()], "one line, no traceback"
    assert install_line(extra) in err
    assert f"`docs-mcp {args[0]}`" in err


def test_a_provider_whose_extra_is_missing_exits_2_naming_it(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    args = ["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out"), "--embedding-provider", "local"]
    code, _out, err, _modules = _run(args, blocked=_extras_except("build"))
    assert code == 2
    assert install_line("build", "local") in err
    assert not (tmp_path / "out").exists()


def test_fix_with_a_model_but_without_the_openai_extra_exits_2_naming_it(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")  # no manifest: the model would help bootstrap
    args = ["fix", "--docs-dir", str(tmp_path), "--llm", "openai", "--base-url", "http://127.0.0.1:9/v1"]
    code, _out, err, _modules = _run(args, blocked=_extras_except("build"))
    assert code == 2
    assert "`docs-mcp fix --llm openai` needs the openai extra" in err and install_line("openai") in err


def test_search_and_get_run_on_the_base_install(built_index: Path) -> None:
    code, out, _err, modules = _run(
        ["search", "--index", str(built_index), "retry", "--json"], blocked=_extras_except()
    )
    assert code == 0, _err
    hits = json.loads(out)["hits"]
    assert hits
    assert not {"markdown_it", "yaml"} & set(modules)
    code, out, _err, _modules = _run(
        ["get", "--index", str(built_index), hits[0]["chunk_id"]], blocked=_extras_except()
    )
    assert code == 0
    assert hits[0]["chunk_id"] in out


def test_serving_over_stdio_loads_no_http_stack(built_index: Path) -> None:
    # Input ends at once: the server opens the index, serves nothing and exits.
    code, _out, err, modules = _run(["serve", "--index", str(built_index)], blocked=_extras_except())
    assert code == 0, err
    assert "serving index" in err
    assert "lancedb" in modules and "mcp" in modules
    assert [m for m in modules if m in HTTP_ONLY] == []


@pytest.mark.parametrize("provider", ["local", "openai"])
def test_building_with_a_provider_names_the_whole_install_line(tmp_path: Path, provider: str) -> None:
    args = ["build", "--docs-dir", ".", "--out", str(tmp_path / "out"), "--embedding-provider", provider]
    code, _out, err, _modules = _run(args, blocked=_extras_except())
    assert code == 2
    assert install_line("build", provider) in err
    assert err.splitlines() == [err.strip()]


@pytest.mark.parametrize("kept", [(), ("build",), ("openai",)])
def test_agent_eval_without_its_extras_exits_2_naming_both(tmp_path: Path, kept: tuple[str, ...]) -> None:
    scenarios = tmp_path / "s.yaml"
    scenarios.write_text("scenarios:\n  - {id: a, prompt: p}\n")
    args = ["agent-eval", str(scenarios), "--index", str(tmp_path), "--model", "m"]
    code, out, err, _modules = _run(args, blocked=_extras_except(*kept))
    assert code == 2
    assert out == ""
    assert err.splitlines() == [err.strip()], "one line, no traceback"
    assert "`docs-mcp agent-eval` needs the" in err and install_line("build", "openai") in err
