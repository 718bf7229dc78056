"""A raw JSON-RPC line client for the real stdio server (a subprocess), and its memory use."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

from server_support import serve_command, server_env

PROTOCOL_VERSION = "2025-06-18"


class LineClient:
    """Writes lines to ``docs-mcp serve`` over stdio and reads its answers, each with a deadline."""

    def __init__(self, index: Path) -> None:
        self.process = subprocess.Popen(
            serve_command(index),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=server_env(),
        )
        self.answers: queue.Queue[bytes] = queue.Queue()
        self.stderr: list[bytes] = []
        self._threads = [
            threading.Thread(target=self._pump, args=(self.process.stdout, self.answers.put), daemon=True),
            threading.Thread(target=self._pump, args=(self.process.stderr, self.stderr.append), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self._sentinel = 0

    @staticmethod
    def _pump(stream: Any, sink: Any) -> None:
        with stream:
            for line in stream:
                sink(line)

    def send(self, line: str | bytes) -> None:
        assert self.process.stdin is not None
        data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def request(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send one request and return the answer with its id (answers to others are kept aside)."""
        self.send(json.dumps(message))
        return self.wait_for(message["id"])

    def next_answer(self, timeout: float = 20.0) -> dict[str, Any]:
        answer: dict[str, Any] = json.loads(self.answers.get(timeout=timeout))
        return answer

    def wait_for(self, request_id: object, timeout: float = 20.0) -> dict[str, Any]:
        aside: list[bytes] = []
        try:
            while True:
                raw = self.answers.get(timeout=timeout)
                answer: dict[str, Any] = json.loads(raw)
                if answer.get("id") == request_id:
                    return answer
                aside.append(raw)
        finally:
            for raw in aside:
                self.answers.put(raw)

    def ping(self) -> list[dict[str, Any]]:
        """A ping with a fresh id; every answer that came before its own (in arrival order)."""
        self._sentinel += 1
        sentinel = f"sentinel-{self._sentinel}"
        self.send(json.dumps({"jsonrpc": "2.0", "id": sentinel, "method": "ping"}))
        before = []
        while (answer := self.next_answer()).get("id") != sentinel:
            before.append(answer)
        assert answer.get("result") == {}, answer
        return before

    def initialize(self) -> dict[str, Any]:
        answer = self.request(
            {
                "jsonrpc": "2.0",
                "id": "init",
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {},
                    "clientInfo": {"name": "fuzz", "version": "1"},
                },
            }
        )
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        return answer

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(10)
            for thread in self._threads:
                thread.join(10)

    @property
    def stderr_text(self) -> str:
        return b"".join(self.stderr).decode("utf-8", "replace")


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def search_call(request_id: object, query: str = "refund a payment") -> dict[str, Any]:
    arguments = {"query": query, "limit": 3}
    params = {"name": "search_docs", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
