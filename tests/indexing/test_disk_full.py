"""Issue 19: a build that filled the disk ended in a LanceDB traceback (the old index did stay). Now it
is one line naming the folder, exit 1, and the previous index still answers. The disk is a real
4 MiB tmpfs, mounted in a private mount namespace of the test's own (``unshare``), so nothing else
sees it; where that is not permitted the test skips. The rebuild is ``--full``: an update of unchanged
docs (``indexing/incremental.py``) hard-links the old index and needs next to no space."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)
REPO_ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
set -e
mount -t tmpfs -o size=4m tmpfs "$1"
cp -r "$2" "$1/docs"
docs_mcp() { "$PYTHON" -m docs_mcp "$@"; }
docs_mcp build --docs-dir "$1/docs" --out "$1/out" --quiet > /dev/null
head -c $(( $(df --output=avail -B1 "$1" | tail -1) - 20000 )) /dev/zero > "$1/filler" || true
set +e
docs_mcp build --docs-dir "$1/docs" --out "$1/out" --quiet --full
echo "build exit $?"
docs_mcp search --index "$1/out" "refund a payment" --limit 1 > /dev/null && echo "old index answers"
"""


def test_a_build_that_fills_the_disk_is_one_line_and_keeps_the_old_index(
    examples_docs: Path, tmp_path: Path
) -> None:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare (util-linux) for a private tmpfs")
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here: {probe.stderr.decode(errors='replace').strip()}")
    (tmp_path / "disk").mkdir()
    env = {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(REPO_ROOT / "src")}
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", SCRIPT, "-",
         str(tmp_path / "disk"), str(examples_docs)],
        capture_output=True, text=True, timeout=100, env=env,
    )  # fmt: skip
    assert "build exit 1" in done.stdout and "old index answers" in done.stdout, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    ours = [line for line in done.stderr.splitlines() if line.startswith("docs-mcp")]
    assert len(ours) == 1 and "the disk filled up while writing the new index" in ours[0], done.stderr
    assert "is unchanged" in ours[0]
