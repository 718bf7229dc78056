"""Running the real server as a subprocess, for the stdio, HTTP and benchmark tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
CURSOR_KEY = b"server-tests-key"
_URL = re.compile(r"at (http://\S+/mcp)")
# What the server says over HTTP: at once "opening ...; listening at URL", then, once its index is
# open, "serving ... ready in Ns at URL" (docs_mcp.server.startup.launch).
LISTENING = r"listening at http://"
READY = r"ready in .* at http://"


def serve_command(index: Path | str, *extra: str) -> list[str]:
    """The real CLI, as a user would run it."""
    return [sys.executable, "-m", "docs_mcp", "serve", "--index", str(index), *extra]


def server_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **extra}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "src"), env.get("PYTHONPATH", "")])
    return env


@dataclass
class HttpServer:
    process: subprocess.Popen[str]
    url: str  # .../mcp
    stderr_lines: list[str]
    reader: threading.Thread

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")


def pump_lines(stream: Any, lines: list[str], ready: threading.Event, pattern: str) -> None:
    """Collect ``stream``'s lines until it closes (then close it); set ``ready`` at the first line
    matching ``pattern``, or at the end."""
    with stream:
        for line in stream:
            lines.append(line)
            if re.search(pattern, line):
                ready.set()
    ready.set()


def start_http_server(
    index: Path | str,
    *extra: str,
    deadline: float = 30.0,
    loaded: bool = True,
    env: dict[str, str] | None = None,
) -> HttpServer:
    """Start ``docs-mcp serve --transport http --port 0``; wait (bounded) until it says its index is
    open and where it listens (``loaded``), or only where it listens (not ``loaded``)."""
    process = subprocess.Popen(
        serve_command(index, "--transport", "http", "--port", "0", *extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(**(env or {})),
    )
    lines: list[str] = []
    ready = threading.Event()
    reader = threading.Thread(
        target=pump_lines, args=(process.stderr, lines, ready, READY if loaded else LISTENING), daemon=True
    )
    reader.start()
    found = ready.wait(deadline) and [m.group(1) for m in map(_URL.search, lines) if m]
    if not found:
        process.kill()
        process.wait(10)
        reader.join(10)
        raise AssertionError("server did not start:\n" + "".join(lines))
    return HttpServer(process=process, url=found[0], stderr_lines=lines, reader=reader)


def stop(server: HttpServer, deadline: float = 15.0) -> int:
    """Terminate (SIGTERM) and wait with a deadline; kill if it does not exit. Closes the pipes."""
    process = server.process
    if process.poll() is None:
        process.terminate()
    try:
        return process.wait(deadline)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)
        raise
    finally:
        server.reader.join(10)
