"""The real server as a stdio subprocess, started through the CLI like an MCP client would."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from server_support import pump_lines, serve_command, server_env

pytestmark = pytest.mark.timeout(60)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_real_client_searches_and_reads_over_stdio(example_index: Path) -> None:
    command = serve_command(example_index)
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
    async with Client(parameters) as client:
        assert "Acme Payments" in (client.instructions or "")
        tools = (await client.list_tools()).tools
        assert {tool.name for tool in tools} == {"search_docs", "get_doc"}
        page = await client.call_tool("search_docs", {"query": "create a payment", "language": "typescript"})
        assert not page.is_error and isinstance(page.structured_content, dict)
        hit = page.structured_content["hits"][0]
        assert hit["facets"].get("language") in ("typescript", None)
        window = await client.call_tool("get_doc", {"chunk_id": hit["chunk_id"]})
        assert not window.is_error
        bad = await client.call_tool("search_docs", {"query": "x", "language": "cobol"})
        assert bad.is_error


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_stdio_server_cleanly(example_index: Path, sig: signal.Signals) -> None:
    process = subprocess.Popen(
        serve_command(example_index),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )
    ready = threading.Event()
    lines: list[str] = []
    reader = threading.Thread(target=pump_lines, args=(process.stderr, lines, ready, "on stdio"), daemon=True)
    reader.start()
    with process:
        try:
            assert ready.wait(30), "server did not start"
            assert process.poll() is None, "".join(lines)
            process.send_signal(sig)
            assert process.wait(15) == 0, "".join(lines)
        finally:
            if process.poll() is None:
                process.kill()
            process.wait(10)
            reader.join(10)
    assert "Traceback" not in "".join(lines)


def test_a_missing_index_is_a_clear_error_with_exit_code_1(tmp_path: Path) -> None:
    result = subprocess.run(
        serve_command(tmp_path / "nowhere"),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=server_env(),
        timeout=30,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("docs-mcp: error:")
    assert result.stdout == ""
    assert sys.executable  # the command ran under this interpreter
