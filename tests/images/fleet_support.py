"""The fleet test's client side: closed-loop MCP clients that search and follow cursors through the load
balancer, recording every answer; and HAProxy's view of its replicas (its stats page, CSV).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
REPLICA_HEADER = "x-docs-mcp-replica"
QUERIES = ["payment", "retry a failed request", "webhook signature", "refund", "pagination", "errors"]
STALE = "The cursor is stale"  # docs_mcp.server.tools.cursor: the index was replaced since it was issued


@dataclass
class Answer:
    at: float  # time.monotonic() when sent
    seconds: float
    outcome: str  # ok, stale (a cursor from the index before a swap: search again), failed
    replica: str
    detail: str = ""


@dataclass
class Tally:
    answers: list[Answer] = field(default_factory=list)
    pages_continued: int = 0  # cursor pages answered
    continued_elsewhere: int = 0  # ... by a replica other than the one that issued the cursor


def _call(http: httpx.Client, url: str, arguments: dict[str, Any], id_: int) -> tuple[Answer, dict[str, Any]]:
    body = {"jsonrpc": "2.0", "id": id_, "method": "tools/call"}
    body["params"] = {"name": "search_docs", "arguments": arguments}
    started = time.monotonic()
    try:
        response = http.post(url, content=json.dumps(body))
    except httpx.TransportError as error:
        return Answer(started, time.monotonic() - started, "failed", "", type(error).__name__), {}
    seconds = time.monotonic() - started
    replica = response.headers.get(REPLICA_HEADER, "")
    if response.status_code != 200:
        return Answer(started, seconds, "failed", replica, f"HTTP {response.status_code}"), {}
    message = response.json()
    if "error" in message:
        return Answer(started, seconds, "failed", replica, str(message["error"])[:200]), {}
    result = message["result"]
    if result.get("isError"):
        text = result["content"][0]["text"]
        outcome = "stale" if STALE in text else "failed"
        return Answer(started, seconds, outcome, replica, text[:200]), {}
    return Answer(started, seconds, "ok", replica), dict(result["structuredContent"])


@dataclass
class Clients:
    """``count`` threads, each searching then following up to ``pages`` cursors, until :meth:`stop`."""

    url: str
    headers: dict[str, str]
    count: int = 16
    pages: int = 3
    max_calls: int = 20_000  # per client: the run is bounded even if stop never comes
    tallies: list[Tally] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Clients:
        self.tallies = [Tally() for _ in range(self.count)]
        for number in range(self.count):
            thread = threading.Thread(target=self._run, args=(number,), daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)

    def _run(self, number: int) -> None:
        tally = self.tallies[number]
        ids = itertools.count()
        with httpx.Client(headers={**HEADERS, **self.headers}, timeout=httpx.Timeout(20.0)) as http:
            for round_ in itertools.count():
                if self._stop.is_set() or len(tally.answers) >= self.max_calls:
                    return
                query = QUERIES[(number + round_) % len(QUERIES)]
                answer, page = _call(http, self.url, {"query": query, "limit": 2}, next(ids))
                tally.answers.append(answer)
                for _ in range(self.pages):
                    cursor = page.get("next_cursor")
                    if not cursor or self._stop.is_set():
                        break
                    issuer = answer.replica
                    answer, page = _call(http, self.url, {"cursor": cursor}, next(ids))
                    tally.answers.append(answer)
                    if answer.outcome == "ok":
                        tally.pages_continued += 1
                        tally.continued_elsewhere += answer.replica != issuer

    @property
    def answers(self) -> list[Answer]:
        return [answer for tally in self.tallies for answer in tally.answers]

    def replicas(self) -> Counter[str]:
        return Counter(answer.replica for answer in self.answers if answer.outcome == "ok")


def backend_states(stats_url: str) -> dict[str, str]:
    """HAProxy's state of each server slot of backend ``serve`` that DNS filled (UP, DOWN, ...; an
    empty slot is ``MAINT (resolution)``)."""
    text = httpx.get(f"{stats_url};csv", timeout=5).text.lstrip("# ")
    rows = csv.DictReader(io.StringIO(text))
    return {
        row["svname"]: row["status"].split(" ")[0]
        for row in rows
        if row["pxname"] == "serve"
        and row["svname"] not in ("FRONTEND", "BACKEND")
        and not row["status"].startswith("MAINT")
    }


def wait_until(predicate: Any, timeout: float, step: float = 0.1) -> float:
    """Poll ``predicate`` until true; seconds it took. Raises AssertionError after ``timeout``."""
    started = time.monotonic()
    while True:
        try:
            if predicate():
                return time.monotonic() - started
        except (httpx.HTTPError, ValueError, KeyError):
            pass
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not true within {timeout} s: {getattr(predicate, '__name__', predicate)}")
        time.sleep(step)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]
