"""Versions come from index manifests (``build --version``, a pulled artifact): data, sorted without
int(). "1²" passes ``str.isdigit()`` and fails ``int()``, and int() refuses thousands of digits: either
version in a manifest was a ValueError traceback as the server started."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from server_support import serve_command, server_env

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server.hub.specs import latest_version, version_key

pytestmark = pytest.mark.timeout(120)


def test_digit_runs_compare_as_numbers_whatever_their_length() -> None:
    versions = ["10", "2.9", "v2.10", "02", "9" * 5000, "1\u00b2", "2.10rc1"]
    assert sorted(versions, key=version_key) == ["1\u00b2", "02", "2.9", "v2.10", "2.10rc1", "10", "9" * 5000]
    assert latest_version(["1\u00b2", "1.0"], []) == "1\u00b2"


def test_a_server_of_versions_no_int_can_read_starts_and_lists_them(
    examples_docs: Path, tmp_path: Path
) -> None:
    outs = [tmp_path / f"v{number}" for number in range(3)]
    for out, version in zip(outs, ["1\u00b2", "2", "9" * 60], strict=True):
        build(BuildOptions(docs_dir=examples_docs, out=out, version=version))
    done = subprocess.run(
        serve_command(f"acme={outs[0]}", "--index", f"acme={outs[1]}", "--index", f"acme={outs[2]}"),
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=100, env=server_env(), check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert "serving 3 indexes [acme@1\u00b2 (" in done.stderr
