"""The real server as a stdio subprocess, started through the CLI like an MCP client would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from server_support import pump_lines, serve_command, server_env

from docs_mcp.server.transport.stdio import NonBlockingWriter, claimed_stdout

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


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_stdout_writer_delivers_a_message_larger_than_the_pipe_buffer_to_a_slow_reader() -> None:
    read_end, write_end = os.pipe()
    message = "".join(f"line {n} é\n" for n in range(60_000))  # ~700 KB, the pipe holds 64 KB
    received = bytearray()

    def drain() -> None:
        with os.fdopen(read_end, "rb") as stream:
            while chunk := stream.read(4096):
                received.extend(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    writer = NonBlockingWriter(write_end)
    with writer.non_blocking():
        assert not os.get_blocking(write_end)
        assert await writer.write(message) == len(message)
        await writer.flush()
    assert os.get_blocking(write_end), "the descriptor is blocking again afterwards"
    os.close(write_end)
    reader.join(30)
    assert received.decode("utf-8") == message


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_stdout_writer_writes_a_regular_file_as_is(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with target.open("wb") as stream:
        writer = NonBlockingWriter(stream.fileno())
        with writer.non_blocking():
            assert os.get_blocking(stream.fileno())  # files are left alone
            await writer.write('{"jsonrpc": "2.0"}\n')
    assert target.read_text(encoding="utf-8") == '{"jsonrpc": "2.0"}\n'


def test_stray_output_to_fd_1_while_serving_goes_to_stderr_not_the_protocol(
    capfd: pytest.CaptureFixture[str],
) -> None:
    with claimed_stdout() as private:
        os.write(1, b"stray\n")
        os.write(private, b"protocol\n")
    captured = capfd.readouterr()
    assert captured.out == "protocol\n"
    assert captured.err == "stray\n"
