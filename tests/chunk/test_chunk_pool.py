"""Chunking in helper processes gives exactly what chunking in this process gives, whatever happens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp.chunk.chunk_pool import ChunkPool, Job
from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
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
