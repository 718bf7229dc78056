"""``docs-mcp build`` through main(), and a build really killed half-way in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docs_mcp.cli.main import main
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(180)


def test_build_prints_a_one_line_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = write_docs(tmp_path / "docs")
    assert main(["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"built {tmp_path / 'out'}: 5 files, ")
    assert "chunks, full text only" in captured.out
    assert "files:" in captured.err and "done:" in captured.err


def test_build_with_validation_errors_exits_1_listing_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs", {"a.md": "# A\n", ".docs-mcp.json": "{not json"})
    assert main(["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert ".docs-mcp.json" in err and "nothing was built" in err
    assert not (tmp_path / "out").exists()


def _many_docs(root: Path) -> Path:
    files = {
        f"p{i:03}.md": f"# Page {i}\n\n## Part\n\nWords about topic {i} and retries.\n" for i in range(150)
    }
    return write_docs(root, files)


def test_a_build_killed_half_way_leaves_the_old_index_serving(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    assert main(["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    before = (tmp_path / "out" / MANIFEST_FILE).read_bytes()
    expected = [h.chunk_id for h in DocsIndex.open(tmp_path / "out").search(SearchRequest("retries")).hits]

    big = _many_docs(tmp_path / "big")
    command = [
        sys.executable,
        "-m",
        "docs_mcp",
        "build",
        "--docs-dir",
        str(big),
        "--out",
        str(tmp_path / "out"),
    ]
    command += [
        "--embedding-provider",
        "hash",
        "--embedding-batch-size",
        "1",
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env) as process:
        assert process.stderr is not None
        deadline = time.monotonic() + 120
        for line in process.stderr:  # wait until it embeds: chunked, nothing swapped in yet
            if line.startswith("embedding: ") or time.monotonic() > deadline:
                break
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL

    assert (tmp_path / "out" / MANIFEST_FILE).read_bytes() == before
    index = DocsIndex.open(tmp_path / "out")
    assert [h.chunk_id for h in index.search(SearchRequest("retries")).hits] == expected
    # The next build cleans up after the dead one and succeeds.
    assert main(["build", "--docs-dir", str(big), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert DocsIndex.open(tmp_path / "out").manifest.file_count == 150
    # Nothing left behind but the folders; the killed build's cache holds what it embedded, if anything.
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["big", "docs", "out"]


def test_progress_off_a_terminal_prints_whole_counts_once_per_stage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    assert main(["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "files: 5"
    assert lines[1].startswith("chunks: ") and lines[1].endswith(" from 5 files")
    assert lines[2] == f"writing: {tmp_path / 'out'}"
    assert lines[3].startswith("done: ")
    assert len(lines) == 4


def test_build_json_prints_the_summary_as_one_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    assert main(["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out"), "--json", "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["files"] == 5 and summary["chunks"] > 5
    assert summary["embedding"] is None
    assert {w["rule"] for w in summary["warnings"]} == {"default-strategy"}
    assert summary["out"] == str(tmp_path / "out")


@pytest.mark.parametrize("configured_by", ["flag", "manifest"])
def test_a_missing_api_key_fails_before_anything_is_chunked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, configured_by: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    docs = write_docs(tmp_path / "docs")
    args = ["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out")]
    if configured_by == "flag":
        args += ["--embedding-provider", "openai"]
    else:
        (docs / ".docs-mcp.json").write_text(
            json.dumps({"version": "1", "embedding": {"provider": "openai"}})
        )
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "OPENAI_API_KEY" in err
    assert err.splitlines() == [err.strip()], "no progress: the corpus was not read"
    assert not (tmp_path / "out").exists()
