"""``serve --feedback-log FILE``: the ``docs_feedback`` tool appends an agent's reports as JSON lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from server_support import serve_command, server_env

from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.feedback import FeedbackLog

pytestmark = [pytest.mark.anyio, pytest.mark.timeout(120)]


async def test_reports_are_appended_with_the_index_build_over_stdio(
    example_index: Path, docs_index: DocsIndex, tmp_path: Path
) -> None:
    log = tmp_path / "feedback.jsonl"
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "docs_mcp", "serve", "--index", str(example_index), "--feedback-log", str(log)],
    )
    async with Client(server) as client:
        tools = {tool.name for tool in (await client.list_tools()).tools}
        assert tools == {"search_docs", "get_doc", "docs_feedback"}
        hits = (await client.call_tool("search_docs", {"query": "refund a payment"})).structured_content
        assert isinstance(hits, dict)
        used = [hit["chunk_id"] for hit in hits["hits"][:2]]
        done = await client.call_tool(
            "docs_feedback",
            {"query": "refund a payment", "chunk_ids": used, "score": 4, "reason": "no partial refunds"},
        )
        assert not done.is_error and done.structured_content == {"recorded": True}
        await client.call_tool("docs_feedback", {"query": "webhooks in rust", "score": 1})
        bad = await client.call_tool("docs_feedback", {"query": "x", "score": 9})
        assert bad.is_error and "score=9 is out of range" in bad.content[0].text  # type: ignore[union-attr]
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["query"], r["score"]) for r in records] == [("refund a payment", 4), ("webhooks in rust", 1)]
    assert records[0]["chunk_ids"] == used and records[0]["reason"] == "no partial refunds"
    assert {r["index"] for r in records} == {docs_index.identity}
    assert records[1]["chunk_ids"] == [] and records[1]["time"].endswith("Z")


def test_a_log_that_cannot_be_written_stops_serve_at_start(example_index: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "feedback.jsonl"
    done = subprocess.run(
        serve_command(example_index, "--feedback-log", str(missing)),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 1
    assert "--feedback-log" in done.stderr and "cannot be written" in done.stderr


_FULL_DISK = r"""
import json, resource, signal, sys
from pathlib import Path
from docs_mcp.errors import DocsMcpError
from docs_mcp.server.tools.feedback import FeedbackLog

path = Path(sys.argv[1])
log = FeedbackLog(path, "index-1")
report = {"query": "how do I retry?", "chunk_ids": ["a.md#a"], "score": 2, "reason": "r" * 150}
log.report(report)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails (EFBIG) or comes up short
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
full_at = path.stat().st_size + 100  # room for part of a line: the write is torn there
resource.setrlimit(resource.RLIMIT_FSIZE, (full_at, hard))
refused = []
for _ in range(3):
    try:
        log.report(report)
    except DocsMcpError as error:
        refused.append(str(error))
size_while_full = path.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # space comes back
log.report({**report, "score": 5})
print(json.dumps({"refused": refused, "size_while_full": size_while_full}))
"""


def test_a_full_disk_tears_no_line_and_loses_no_report_after_it(tmp_path: Path) -> None:
    """On a full disk the first report left a torn 4,096-byte line, each report then logged a
    traceback, and the first report after space returned was glued to the torn line and lost."""
    path = tmp_path / "feedback.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(path)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert len(outcome["refused"]) == 3  # a short write (the torn line), then refused writes
    assert all(r.startswith("The feedback was not recorded (") for r in outcome["refused"])
    lines = path.read_text().splitlines()
    assert outcome["size_while_full"] == len(lines[0]) + 1  # cut back: only the first, whole line
    assert [json.loads(line)["score"] for line in lines] == [2, 5]
    assert "Traceback" not in done.stderr
    assert done.stderr.count("docs_feedback: a report was not recorded") == 3


def test_a_torn_last_line_is_ended_before_the_next_report(tmp_path: Path) -> None:
    path = tmp_path / "feedback.jsonl"
    path.write_text('{"time":"2026-01-01T00:00:00Z","query":"cut of')  # a writer died mid-line
    FeedbackLog(path, "index-1").report({"query": "q", "score": 3})
    torn, recorded = path.read_text().splitlines()
    assert torn.endswith("cut of") and json.loads(recorded)["score"] == 3
