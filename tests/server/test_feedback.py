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
