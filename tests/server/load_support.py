"""A bounded load on a running HTTP server: a few threads sending tool calls until told to stop."""

from __future__ import annotations

import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
QUERIES = ["retry a failed payment", "webhook signature", "paginate list results", "refund"]


def tool_call(name: str, arguments: dict[str, Any], id_: int = 1) -> bytes:
    params = {"name": name, "arguments": arguments}
    return json.dumps({"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": params}).encode()


def call(url: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One tool call over HTTP; the JSON-RPC result (raises on a transport or protocol error)."""
    response = httpx.post(url, content=tool_call(name, arguments), headers=HEADERS, timeout=30)
    response.raise_for_status()
    return dict(response.json()["result"])


@dataclass
class Load:
    """``workers`` threads calling search_docs and get_doc on ``url`` until :meth:`stop` (or
    ``max_calls`` each). Every failure (HTTP error, tool error, exception) is recorded."""

    url: str
    workers: int = 4
    max_calls: int = 5000
    get_chunk_id: str | None = "guides/retries.md#retries/backoff-strategy"  # None: searches only
    failures: list[str] = field(default_factory=list)
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (start, seconds)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Load:
        for number in range(self.workers):
            thread = threading.Thread(target=self._run, args=(number,), daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def _run(self, number: int) -> None:
        with httpx.Client(headers=HEADERS, timeout=30) as client:
            for i in itertools.count():
                if self._stop.is_set() or i >= self.max_calls:
                    return
                if i % 5 == 4 and self.get_chunk_id:
                    body = tool_call("get_doc", {"chunk_id": self.get_chunk_id})
                else:
                    body = tool_call(
                        "search_docs", {"query": QUERIES[(number + i) % len(QUERIES)], "limit": 5}
                    )
                started = time.monotonic()
                try:
                    response = client.post(self.url, content=body)
                    result = response.json().get("result", {}) if response.status_code == 200 else {}
                    if response.status_code != 200 or result.get("isError") or "error" in response.json():
                        self.failures.append(f"{response.status_code}: {response.text[:300]}")
                except (httpx.HTTPError, ValueError) as error:
                    self.failures.append(f"{type(error).__name__}: {error}")
                self.latencies.append((started, time.monotonic() - started))

    @property
    def calls(self) -> int:
        return len(self.latencies)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(60)

    def slowest_between(self, start: float, end: float) -> float:
        """The longest call that was running at any time in [start, end]."""
        return max((s for t, s in self.latencies if t <= end and t + s >= start), default=0.0)
