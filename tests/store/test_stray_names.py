"""Names beside an index (or in the blob cache) that look like a writer's pid but are not one: a
superscript digit passes ``str.isdigit()`` and fails ``int()``, 30 digits overflow ``os.kill``. They
are someone else's folders, left alone; before, each killed the build with a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from docs_mcp.cli.main import main
from docs_mcp.store.swap import BUILDING, pid_in_name
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)

STRAY = ["\u00b2", "9" * 30, "9" * 5000, "0", "-1", "4194305", " 12"]


@pytest.mark.parametrize("text", STRAY)
def test_a_name_that_is_no_pid_gives_none(text: str) -> None:
    assert pid_in_name(text) is None


def test_a_pid_in_a_name_is_read() -> None:
    assert pid_in_name(str(os.getpid())) == os.getpid()


def test_a_build_beside_stray_staging_names_succeeds_and_leaves_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out"
    strays = [tmp_path / f".out{BUILDING}{text}" for text in STRAY[:2]]
    for stray in strays:
        stray.mkdir()
    assert main(["build", "--docs-dir", str(docs), "--out", str(out), "--quiet"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert all(stray.is_dir() for stray in strays)
