"""Chunking in helper processes gives exactly what chunking in this process gives, whatever happens."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docs_mcp.chunk.chunk_pool import ChunkPool, Job
from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.corpus.loader import PARALLEL_THRESHOLD
from docs_mcp.parse.strategy import Strategy

pytestmark = pytest.mark.timeout(60)

SETTINGS = FileSettings(strategy=Strategy(chunk_by="h3"), metadata={"language": "go"}, strategy_explicit=True)


def jobs(count: int) -> list[Job]:
    return [
        (
            f"# Doc {n}\n\n{'intro ' * n}\n\n## Part\n\n| a | b |\n|---|---|\n| {n} | x |\n\n"
            f'<!-- mcp_metadata: {{"stability": "beta"}} -->\n### Deep {n}\n\ntext\n',
            f"dir/doc{n}.md",
            SETTINGS,
        )
        for n in range(count)
    ]


def in_process(batch: list[Job]) -> list[object]:
    return [chunk_file(*job) for job in batch]


def test_helpers_give_the_same_files_in_the_same_order() -> None:
    batch = jobs(30)
    with ChunkPool(3) as pool:
        assert list(pool.chunk(batch)) == in_process(batch)


def test_a_helper_that_cannot_start_leaves_its_share_to_this_process() -> None:
    batch = jobs(10)
    with ChunkPool(2, python="/nonexistent/python") as pool:
        assert list(pool.chunk(batch)) == in_process(batch)


def test_a_helper_that_fails_leaves_its_share_to_this_process(tmp_path: Path) -> None:
    failing = tmp_path / "failing-python"
    failing.write_text("#!/bin/sh\necho garbage\nexit 3\n")
    failing.chmod(0o755)
    batch = jobs(10)
    with ChunkPool(2, python=str(failing)) as pool:
        assert list(pool.chunk(batch)) == in_process(batch)


def test_one_worker_chunks_in_this_process_and_streams_results() -> None:
    batch = jobs(3)
    with ChunkPool(1) as pool:
        results = pool.chunk(batch)
        assert next(results) == chunk_file(*batch[0])  # no helper: the first file is ready first
        assert list(results) == in_process(batch)[1:]


def test_an_unused_pool_stops_its_helpers() -> None:
    pool = ChunkPool(2)
    helpers = [helper for helper in pool._helpers if helper is not None]
    pool.close()
    assert helpers and all(helper.returncode is not None for helper in helpers)


def test_a_caller_reading_its_script_from_stdin_can_use_helpers(tmp_path: Path) -> None:
    # multiprocessing's spawn and forkserver pools crash here (BrokenProcessPool): they re-import
    # the caller's __main__, which is "<stdin>".
    for n in range(6):
        (tmp_path / f"d{n}.md").write_text(f"# T{n}\n\n## A\n\ntext {n}\n", encoding="utf-8")
    script = (
        "from pathlib import Path\n"
        "from docs_mcp.corpus.loader import load_corpus\n"
        f"corpus = load_corpus(Path({str(tmp_path)!r}), workers=2)\n"
        "print(len(corpus.files), len(corpus.chunks))\n"
    )
    done = subprocess.run(
        [sys.executable, "-"], input=script, capture_output=True, text=True, timeout=50, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["6", "6"]


def test_a_build_killed_with_sigkill_leaves_no_traceback_from_its_helper(tmp_path: Path) -> None:
    """Issue 19: after ``kill -9`` of a build, its chunk-pool helper printed a traceback (a pickle cut
    short, or a pipe closed under it). The build here has enough files for the pool; it is killed
    as soon as its helper runs, and everything written to the shared stderr is read to its end."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for number in range(PARALLEL_THRESHOLD + 50):
        (docs / f"page{number}.md").write_text(f"# Page {number}\n\n" + "Some words here. " * 400)
    build = subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "build", "--docs-dir", str(docs), "--out", str(tmp_path / "out")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")},
    )
    children = Path(f"/proc/{build.pid}/task/{build.pid}/children")
    deadline = time.monotonic() + 60
    while not children.read_text().split():
        assert time.monotonic() < deadline and build.poll() is None, "the build started no helper"
        time.sleep(0.01)
    time.sleep(0.3)  # the helper is importing or reading its share
    build.kill()
    assert build.stderr is not None
    with build.stderr:
        stderr = build.stderr.read()  # to its end: every helper that held it has exited
    build.wait(30)
    assert "Traceback" not in stderr, stderr


def test_a_helper_that_stops_answering_leaves_its_share_to_this_process(tmp_path: Path) -> None:
    """A helper stopped (SIGSTOP, a stuck native call) before it read its share: with a share larger
    than a pipe holds, the write to it blocked the build forever, and so did the read of its answer.
    Now each has a deadline; the helper is killed and its share chunked here."""
    stopped = tmp_path / "stopped-python"
    stopped.write_text("#!/bin/sh\nkill -STOP $$\n")
    stopped.chmod(0o755)
    batch = [(text * 40, path, settings) for text, path, settings in jobs(40)]  # well over 64 KiB
    with ChunkPool(2, python=str(stopped), wait=0.5) as pool:
        assert list(pool.chunk(batch)) == in_process(batch)


def test_a_helper_that_takes_its_share_and_never_answers_leaves_it_to_this_process(tmp_path: Path) -> None:
    silent = tmp_path / "silent-python"
    silent.write_text("#!/bin/sh\ncat > /dev/null\nkill -STOP $$\n")
    silent.chmod(0o755)
    batch = jobs(10)
    with ChunkPool(2, python=str(silent), wait=0.5) as pool:
        assert list(pool.chunk(batch)) == in_process(batch)
