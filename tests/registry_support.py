"""A real OCI registry for tests: Debian's ``docker-registry`` (distribution 2.8) on a free 127.0.0.1 port.

Started per test session, with or without htpasswd (bcrypt) authentication, from a config written
here (the package's own config points htpasswd at a folder and breaks every request). In CI (``CI``
set, or ``DOCS_MCP_REQUIRE_REGISTRY`` as ``.ci/run`` sets it) a missing binary fails the tests:
``.ci/run`` installs it. On a laptop without it they skip.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import socket
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REGISTRY_BINARY = "docker-registry"
REGISTRY_USER, REGISTRY_PASSWORD = "ci-bot", "s3cret-registry-pass"  # the htpasswd registry's user
INSTALL_HINT = "apt-get install -y docker-registry apache2-utils skopeo (what .ci/run does)"


def require_tool(name: str) -> str:
    """The path of ``name``; fails under CI (where .ci/run must have installed it), skips elsewhere."""
    found = shutil.which(name)
    if found:
        return found
    message = f"{name} is not installed: {INSTALL_HINT}"
    if os.environ.get("CI") or os.environ.get("DOCS_MCP_REQUIRE_REGISTRY"):
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class Registry:
    """A running registry: ``host`` is ``127.0.0.1:PORT``; ``storage`` its filesystem root."""

    host: str
    storage: Path
    process: subprocess.Popen[bytes]
    username: str | None = None
    password: str | None = None

    def ref(self, repository: str, tag: str = "latest") -> str:
        return f"{self.host}/{repository}:{tag}"

    def blob_file(self, digest: str) -> Path:
        """Where the registry keeps a blob's bytes (distribution's filesystem layout)."""
        hexdigest = digest.removeprefix("sha256:")
        return self.storage / "docker/registry/v2/blobs/sha256" / hexdigest[:2] / hexdigest / "data"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_registry(root: Path, *, username: str | None = None, password: str | None = None) -> Registry:
    """Start a registry storing under ``root``; waits (bounded) until ``/v2/`` answers."""
    binary = require_tool(REGISTRY_BINARY)
    root.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    config = [
        "version: 0.1",
        "log: {level: error, accesslog: {disabled: true}}",
        f"storage: {{filesystem: {{rootdirectory: {root / 'data'}}}, delete: {{enabled: true}}}}",
        f"http: {{addr: 127.0.0.1:{port}}}",
    ]
    if username and password:
        htpasswd = require_tool("htpasswd")
        subprocess.run(
            [htpasswd, "-B", "-b", "-c", str(root / "htpasswd"), username, password],
            check=True,
            capture_output=True,
            timeout=30,
        )
        config.append(f"auth: {{htpasswd: {{realm: docs-mcp-tests, path: {root / 'htpasswd'}}}}}")
    (root / "config.yml").write_text("\n".join(config) + "\n")
    process = subprocess.Popen(
        [binary, "serve", str(root / "config.yml")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    registry = Registry(f"127.0.0.1:{port}", root / "data", process, username, password)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://{registry.host}/v2/", timeout=1).status_code in (200, 401):
                return registry
        except httpx.TransportError:
            pass
        if process.poll() is not None:
            break
        time.sleep(0.05)
    stop_registry(registry)
    raise AssertionError(f"docker-registry did not start on {registry.host}")


def stop_registry(registry: Registry) -> None:
    if registry.process.poll() is None:
        registry.process.terminate()
        try:
            registry.process.wait(10)
        except subprocess.TimeoutExpired:
            registry.process.kill()
            registry.process.wait(10)


class SlowProxy:
    """A TCP proxy on 127.0.0.1 that passes a registry's answers on at ``rate`` bytes per second, so a
    test can stop a pull in the middle of a download. It reads the registry's answers at full speed
    (the registry sees a fast client) and only delivers them slowly; requests pass straight through."""

    def __init__(self, target: str, rate: int) -> None:
        self._target_host, port = target.rsplit(":", 1)
        self._target_port = int(port)
        self._rate = rate
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.host = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self._stopped = threading.Event()
        self._sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection((self._target_host, self._target_port))
            self._sockets += [client, upstream]
            answers: queue.Queue[bytes] = queue.Queue()
            for target, args in (
                (self._forward, (client, upstream)),
                (self._collect, (upstream, answers)),
                (self._deliver, (answers, client)),
            ):
                threading.Thread(target=target, args=args, daemon=True).start()

    @staticmethod
    def _forward(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)

    @staticmethod
    def _collect(source: socket.socket, answers: queue.Queue[bytes]) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                answers.put(data)
        answers.put(b"")

    def _deliver(self, answers: queue.Queue[bytes], sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := answers.get():
                for start in range(0, len(data), 1024):
                    sink.sendall(data[start : start + 1024])
                    time.sleep(1024 / self._rate)  # the throttle itself, not a wait for an event
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Stop accepting and cut every connection (its threads then end)."""
        self._stopped.set()
        self._listener.close()
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
