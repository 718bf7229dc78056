"""``docs-mcp serve``'s readiness line (the process serves stdio until its input ends)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from index_fixtures import write_docs

from docs_mcp.build.pipeline import BuildOptions, build

REPO_ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-cli")
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=root / "out"))
    return root / "out"


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", "serve", *args],
        input="",  # input ends at once: the server announces itself and exits
        capture_output=True,
        text=True,
        timeout=100,
        cwd=REPO_ROOT,
    )


def test_serve_announces_itself_in_one_line_on_stderr(index: Path) -> None:
    done = _serve("--index", str(index))
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith("docs-mcp: serving index ")
    assert done.stderr.rstrip().endswith("on stdio")
