"""A path the system would refuse for its shape is a usage error naming the flag, checked once at
the edge; a path it refuses when used (a loop of links) is one line; never an ``OSError`` traceback.
``serve --index NAME=REF`` with a REF over 255 bytes ended in one."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

LONG = "x" * 300

CASES = {
    "validate": (["validate", "--docs-dir", LONG], "--docs-dir"),
    "build-out": (["build", "--docs-dir", "examples/docs", "--out", f"/tmp/{LONG}"], "--out"),
    "chunk-file": (["chunk", "--docs-dir", "examples/docs", "--file", f"guides/{LONG}.md"], "--file"),
    "search": (["search", "--index", LONG, "retry"], "--index"),
    "pull-out": (["pull", "127.0.0.1:9/docs:v1", "--out", LONG], "--out"),
    "inner-name": (["validate", "--docs-dir", "docs/" + "x" * 256 + "/guides"], "--docs-dir"),
}
REPO_ROOT = Path(__file__).resolve().parents[2]


def _docs_mcp(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "docs_mcp", *args]
    return subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("case", list(CASES))
def test_a_name_over_255_bytes_is_a_usage_error_naming_the_flag(case: str) -> None:
    args, flag = CASES[case]
    done = _docs_mcp(*args)
    assert done.returncode == 2, done.stderr
    assert f"error: argument {flag}: the name 'xxxx" in done.stderr
    assert re.search(r"is \d+ bytes; a file or folder name holds at most 255", done.stderr)
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("spec", [f"docs={LONG}", f"docs@1.0={LONG}", LONG, f"{LONG}=x"])
def test_serve_index_specs_too_long_for_the_system_are_one_line(spec: str) -> None:
    done = _docs_mcp("serve", "--index", spec)
    assert done.returncode in (1, 2), done.stderr
    assert done.stderr.startswith("docs-mcp: error: ") and done.stderr.count("\n") == 1, done.stderr


def test_a_loop_of_links_is_one_line(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for args in (["validate", "--docs-dir", str(loop)], ["search", "--index", str(loop), "q"]):
        done = _docs_mcp(*args)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
        assert "Traceback" not in done.stderr
