"""The build's progress as a person sees it: a bar that fits the terminal and is cleared at the end
(tqdm), a line every few seconds with rate and ETA in a log, and what a cache hit spares."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from docs_mcp.cli.main import main
from docs_mcp.cli.progress import BuildProgressPrinter
from docs_mcp.indexing.pipeline import BuildProgress
from testkit.index_fixtures import write_docs

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_off_a_terminal_a_line_every_few_seconds_with_count_rate_and_eta() -> None:
    log, clock = io.StringIO(), Clock()
    show = BuildProgressPrinter(log, interval=5.0, clock=clock)
    for done in range(1, 201):  # 200 files in 20 s
        clock.now += 0.1
        show(BuildProgress("files", done))
    show(BuildProgress("chunks", 400, 400, "from 200 files"))
    show(BuildProgress("embedding", 0, 400, "400 to embed, 0 cached (model)"))
    for done in range(0, 401, 40):  # 400 chunks in 20 s: 20/s
        clock.now += 2.0
        show(BuildProgress("embedding", done, 400, "model"))
    show(BuildProgress("writing", 0, None, "/out"))
    lines = log.getvalue().splitlines()
    assert all(re.fullmatch(r"files: \d+, 10 files/s", line) for line in lines[:3]), lines
    assert lines[3] == "files: 200 in 0:20 (10/s)"
    assert lines[4:6] == ["chunks: 400 from 200 files", "embedding: 400 to embed, 0 cached (model)"]
    assert lines[6] == "embedding: 80/400, 13 chunks/s, ETA 0:24"  # 6 s after the stage began
    assert all(re.fullmatch(r"embedding: \d+/400, \d+ chunks/s, ETA \d:\d\d", line) for line in lines[6:-2])
    assert lines[-2:] == ["embedding: 400 embedded in 0:22 (18/s)", "writing: /out"]


def test_on_a_terminal_a_bar_that_fits_the_width_and_is_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    screen = Terminal()
    show = BuildProgressPrinter(screen)
    show(BuildProgress("embedding", 0, 300, "300 to embed, 0 cached (model)"))
    for done in range(0, 301, 30):
        show(BuildProgress("embedding", done, 300, "model"))
    show(BuildProgress("writing", 0, None, "/out"))
    show.close()
    drawn = [_ANSI.sub("", part) for part in re.split(r"[\r\n]", screen.getvalue())]
    bars = [part for part in drawn if "chunks/s" in part or "?" in part]
    assert bars, screen.getvalue()
    assert all(len(part) <= 50 for part in drawn), drawn
    assert any("/300" in bar and "chunks/s" in bar for bar in bars), bars
    # What stays: the plan, the result and the next stage; the bar's line was blanked.
    kept = [line for line in screen.getvalue().split("\n") if line.strip()]
    assert kept[0] == "embedding: 300 to embed, 0 cached (model)"
    assert _ANSI.sub("", kept[-2]).rsplit("\r", 1)[-1].startswith("embedding: 300 embedded")
    assert kept[-1] == "writing: /out"


def test_a_rebuild_says_how_many_chunks_the_cache_spared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    args = ["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out"), "--embedding-provider", "hash"]
    assert main(args) == 0
    first = capsys.readouterr().err
    chunks = int(re.search(r"chunks: (\d+)", first)[1])  # type: ignore[index]
    assert f"embedding: {chunks} to embed, 0 cached" in first
    assert main([*args, "--full"]) == 0
    again = capsys.readouterr().err
    assert f"embedding: 0 to embed, {chunks} cached" in again
    assert "embedded" not in again  # nothing was
    assert main(args) == 0  # an update: the index keeps every row, nothing to look up
    assert f"embedding: 0 to embed, 0 cached, {chunks} kept in the index" in capsys.readouterr().err
