"""Issue 19: idle HTTP connections locked every client out. With a 1,024-descriptor limit, 1,100
connections that never sent a request were held forever (uvicorn has no deadline before the first
request) and the server could not accept another. Now connections are capped below the descriptor
limit, the one waiting longest for its request is closed to make room, and a request head has a
deadline: a real server under a low descriptor limit (256) keeps answering a real client while
three times as many idle and half-sent connections are open."""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from rpc_support import search_call
from server_support import READY, HttpServer, pump_lines, serve_command, server_env, stop

pytestmark = pytest.mark.timeout(120)
DESCRIPTORS = 256
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _low_descriptor_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, DESCRIPTORS))


def _start_with_few_descriptors(index: Path) -> HttpServer:
    process = subprocess.Popen(
        serve_command(index, "--transport", "http", "--port", "0"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
        preexec_fn=_low_descriptor_limit,  # the server process only: the test keeps its own limit
    )
    lines: list[str] = []
    ready = threading.Event()
    reader = threading.Thread(target=pump_lines, args=(process.stderr, lines, ready, READY), daemon=True)
    reader.start()
    assert ready.wait(30), "".join(lines)
    url = next(line.split(" at ", 1)[1].strip() for line in lines if " at http://" in line)
    return HttpServer(process=process, url=url, stderr_lines=lines, reader=reader)


def _search(url: str) -> float:
    started = time.monotonic()
    response = httpx.post(url, content=json.dumps(search_call(1)), headers=HEADERS, timeout=10)
    assert response.status_code == 200 and response.json()["result"]["structuredContent"]["hits"]
    return time.monotonic() - started


def test_idle_connections_never_lock_a_real_client_out(example_index: Path) -> None:
    server = _start_with_few_descriptors(example_index)
    address = urlsplit(server.url)
    idle: list[socket.socket] = []
    try:
        _search(server.url)
        for number in range(3 * DESCRIPTORS):  # more than the server could ever hold
            sock = socket.create_connection((address.hostname, address.port), timeout=5)
            if number % 2:  # half of them start a request head and never finish it
                sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            idle.append(sock)
        seconds = [_search(server.url) for _ in range(5)]
        assert max(seconds) < 5, seconds
        descriptors = len(list(Path(f"/proc/{server.process.pid}/fd").iterdir()))
        assert descriptors < DESCRIPTORS, descriptors
    finally:
        for sock in idle:
            with contextlib.suppress(OSError):
                sock.close()
        assert stop(server) == 0
    assert "Traceback" not in "".join(server.stderr_lines)
