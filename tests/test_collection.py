"""Every test file runs: the README's test command collects each ``tests/**/test_*.py``.

pytest skips folders it takes for output (``norecursedirs`` holds ``build``, ``dist``, ``.*`` and
more), so a test folder with such a name would never run, and nothing would say so. A file that skips
itself at import (a browser test on a machine without Chromium's driver) was collected: pytest read it
and said why it runs nothing, in the ``SKIPPED [N] path:line: reason`` lines of the summary.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
# A module-level skip in the short summary (addopts has -ra): "SKIPPED [1] tests/x/test_y.py:42: why".
_SKIPPED_AT_IMPORT = re.compile(r"SKIPPED \[\d+\] (tests/\S+?\.py):\d+: ")


@pytest.mark.timeout(120)
def test_the_test_command_collects_every_test_file() -> None:
    # What `./dev test` runs (README, Quickstart): pytest with the project's configuration.
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    lines = listed.stdout.splitlines()
    collected = {line.split("::", 1)[0] for line in lines if "::" in line}
    collected |= {match[1] for line in lines if (match := _SKIPPED_AT_IMPORT.match(line))}
    on_disk = {path.relative_to(REPO_ROOT).as_posix() for path in (REPO_ROOT / "tests").rglob("test_*.py")}
    assert sorted(on_disk - collected) == []
