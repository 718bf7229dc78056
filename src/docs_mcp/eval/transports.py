"""MCP clients connected to the real server, one way per transport.

- ``inproc``: the server of :func:`docs_mcp.server.tools.app.create_server` in this process, through the
  SDK's in-memory client (no process, no framing: the fastest way to score ranking);
- ``stdio``: ``docs-mcp serve`` spawned as a subprocess, as an agent's MCP host runs it;
- ``http``: ``docs-mcp serve --transport http --port 0`` spawned on 127.0.0.1, or a server already
  running at a URL.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import anyio
from anyio.abc import Process
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from docs_mcp.errors import ConfigError, DocsMcpError
from docs_mcp.search.types import SearchMode

__all__ = ["TRANSPORTS", "Target", "TransportName", "connect", "parse_transport", "sole_error"]

TransportName = Literal["inproc", "stdio", "http"]
TRANSPORTS: tuple[TransportName, ...] = ("inproc", "stdio", "http")
_URL = re.compile(r"at (http://\S+/mcp)")
START_DEADLINE_S = 120.0  # opening a large index and loading a local model take a while


@dataclass(frozen=True)
class Target:
    """Where the server is: ``index`` served over ``transport``, or the server at ``url``."""

    transport: TransportName
    index: Path | None = None
    url: str | None = None
    mode: SearchMode | None = None  # inproc only: the search mode when a request names none

    @property
    def label(self) -> str:
        return self.url or self.transport


def parse_transport(text: str) -> tuple[TransportName, str | None]:
    """``inproc``, ``stdio``, ``http`` or a server's URL (``http(s)://host:port/mcp``), as (name, url).

    Raises ``ConfigError`` for anything else.
    """
    if text.startswith(("http://", "https://")):
        return "http", text
    if text not in TRANSPORTS:
        raise ConfigError(
            f"unknown transport {text!r}: use inproc, stdio, http, or the URL of a running server"
        )
    return text, None


@asynccontextmanager
async def connect(target: Target) -> AsyncIterator[Client]:
    """An MCP client connected to the server of ``target``; the server stops on exit.

    Raises ``IndexUnavailable`` (inproc) or ``DocsMcpError`` (a subprocess that would not start,
    with its error output; a URL nothing answers at) when the index cannot be served.
    """
    if target.url is not None:
        async with _remote(target.url) as client:
            yield client
        return
    if target.index is None:
        raise ConfigError("an index folder is needed to start a server")
    if target.transport == "inproc":
        async with _inproc(target.index, target.mode) as client:
            yield client
    elif target.transport == "stdio":
        async with _stdio(target.index) as client:
            yield client
    else:
        async with _spawned_http(target.index) as client:
            yield client


@asynccontextmanager
async def _remote(url: str) -> AsyncIterator[Client]:
    connected = False
    try:
        async with Client(url) as client:
            connected = True
            yield client
    except Exception as error:
        if connected:  # raised by the caller's code, or the server went away mid-run: as it is
            raise
        cause = sole_error(error) if isinstance(error, BaseExceptionGroup) else error
        raise DocsMcpError(f"cannot reach an MCP server at {url}: {cause!r}") from error


@asynccontextmanager
async def _inproc(index: Path, mode: SearchMode | None) -> AsyncIterator[Client]:
    from docs_mcp.search.config import SearchConfig
    from docs_mcp.search.index import DocsIndex
    from docs_mcp.server.tools.app import create_server

    opened = DocsIndex.open(index, config=SearchConfig(mode=mode))
    async with Client(create_server(opened)) as client:
        yield client


def _serve_command(index: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "docs_mcp", "serve", "--index", str(index), *extra]


@asynccontextmanager
async def _stdio(index: Path) -> AsyncIterator[Client]:
    command = _serve_command(index)
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    # The server's status lines go to a file, not our terminal; shown only if it fails.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        connected = False
        try:
            async with Client(stdio_client(parameters, errlog=errors)) as client:
                connected = True
                yield client
        except Exception as error:
            if connected:  # raised by the caller's code, or the server died mid-run: as it is
                raise
            errors.seek(0)
            raise DocsMcpError(_failed("stdio", errors.read(), error)) from error


@asynccontextmanager
async def _spawned_http(index: Path) -> AsyncIterator[Client]:
    command = _serve_command(index, "--transport", "http", "--host", "127.0.0.1", "--port", "0")
    process = await anyio.open_process(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    lines: list[str] = []
    try:
        async with anyio.create_task_group() as tasks:
            url = await _announced_url(process, lines)
            tasks.start_soon(_drain, process)
            async with Client(url) as client:
                yield client
            tasks.cancel_scope.cancel()
    finally:
        await _stop(process)


async def _announced_url(process: Process, lines: list[str]) -> str:
    """Read the server's stderr until it says where it listens (bounded by ``START_DEADLINE_S``)."""
    assert process.stderr is not None
    buffer = ""
    with anyio.move_on_after(START_DEADLINE_S):
        async for data in process.stderr:
            buffer += data.decode("utf-8", "replace")
            *complete, buffer = buffer.split("\n")
            lines.extend(complete)
            for line in complete:
                found = _URL.search(line)
                if found:
                    return found.group(1)
    lines.append(buffer)
    raise DocsMcpError(_failed("http", "\n".join(lines), None))


async def _drain(process: Process) -> None:
    assert process.stderr is not None
    async for _data in process.stderr:  # keep the pipe from filling while the server logs
        pass


async def _stop(process: Process) -> None:
    with anyio.CancelScope(shield=True):
        if process.returncode is None:
            process.terminate()
            with anyio.move_on_after(15):
                await process.wait()
        if process.returncode is None:
            process.kill()
            await process.wait()
        await process.aclose()


def sole_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The one exception inside ``group`` (nested task groups wrap it), else the group itself.

    The SDK client's task group wraps whatever the code using it raised: unwrap it so a
    ``DocsMcpError`` reaches the caller as itself.
    """
    found: BaseException = group
    while isinstance(found, BaseExceptionGroup) and len(found.exceptions) == 1:
        found = found.exceptions[0]
    return found


def _failed(transport: str, output: str, error: BaseException | None) -> str:
    said = [line for line in output.splitlines() if line.strip()]
    detail = "; ".join(said[-3:]) or (str(error) if error else "it printed nothing")
    return f"the {transport} server did not serve the index: {detail}"
