"""One replica's throughput: requests/s that ``docs-mcp serve --transport http`` holds at a p95 under
50 ms, on claude-docs (full text), with and without bearer-token checks (docs/scaling.md sizes the
fleet from it).

Closed-loop clients (each sends its next ``search_docs`` when the last one is answered, over a kept-alive
connection) at rising concurrency, a few seconds each; per level: requests/s, p50 and p95. The
replica's capacity is the best requests/s of a level whose p95 stays under 50 ms. The same server
run also takes each level with a static token and with a JWT (a local issuer, testkit.local_issuer), so
what access control costs is compared in the same run. Run:
``.venv/bin/python -m pytest benchmarks/test_throughput.py -p no:cacheprovider -s``.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks.serving import http_server
from testkit.local_issuer import LocalIssuer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

P95_CEILING_MS = 50.0
LEVELS = (1, 2, 4, 8)
SECONDS_PER_LEVEL = 4.0
AUDIENCE = "https://docs.example.test/mcp"
TOKEN = "bench-token-" + "e5" * 16
QUERIES = [
    "how do I stream responses",
    "tool use with the API",
    "rate limits",
    "prompt caching",
    "batch processing",
    "vision image input",
    "system prompts",
    "error codes",
]
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _level(url: str, clients: int, headers: dict[str, str]) -> dict[str, float]:
    """``clients`` closed-loop clients for SECONDS_PER_LEVEL: requests/s, p50, p95 (ms), failures."""
    latencies: list[list[float]] = [[] for _ in range(clients)]
    failures = [0] * clients
    stop_at = time.perf_counter() + SECONDS_PER_LEVEL

    def client(number: int) -> None:
        with httpx.Client(headers={**HEADERS, **headers}, timeout=30) as http:
            for i in range(100_000):
                if time.perf_counter() >= stop_at:
                    return
                query = QUERIES[(number + i) % len(QUERIES)]
                call = {"name": "search_docs", "arguments": {"query": query, "limit": 5}}
                body = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call}
                started = time.perf_counter()
                response = http.post(url, content=json.dumps(body))
                latencies[number].append((time.perf_counter() - started) * 1000)
                if response.status_code != 200 or "error" in response.json():
                    failures[number] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    every = sorted(value for per_client in latencies for value in per_client)
    return {
        "rps": len(every) / elapsed,
        "p50_ms": statistics.median(every),
        "p95_ms": every[min(len(every) - 1, int(len(every) * 0.95))],
        "failures": float(sum(failures)),
    }


@pytest.fixture(scope="module")
def issuer() -> Iterator[LocalIssuer]:
    with LocalIssuer() as local:
        yield local


def test_one_replica_requests_per_second_at_p95_under_50ms(
    benchmark: BenchmarkFixture, claude_fulltext_index: Path, issuer: LocalIssuer, tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(f"sha256:{hashlib.sha256(TOKEN.encode()).hexdigest()}\n")
    auth = ("--auth-tokens", str(tokens), "--auth-issuer", issuer.url, "--auth-audience", AUDIENCE)
    modes = {
        "open": {},
        "token": {"Authorization": f"Bearer {TOKEN}"},
        "jwt": {"Authorization": f"Bearer {issuer.mint(AUDIENCE, lifetime=3600)}"},
    }
    figures: dict[str, float] = {}
    rows: list[str] = []
    with (
        http_server(claude_fulltext_index) as (_, open_url),
        http_server(claude_fulltext_index, *auth) as (
            _,
            auth_url,
        ),
    ):
        for mode, headers in modes.items():
            url = open_url if mode == "open" else auth_url
            _level(url, 2, headers)  # warm up: first calls compile and fill caches
            best = 0.0
            for clients in LEVELS:
                level = _level(url, clients, headers)
                assert level["failures"] == 0, (mode, clients, level)
                rows.append(
                    f"{mode:>5} {clients:>2} clients: {level['rps']:6.0f} req/s, "
                    f"p50 {level['p50_ms']:5.1f} ms, p95 {level['p95_ms']:5.1f} ms"
                )
                figures[f"{mode}_c{clients}_rps"] = level["rps"]
                figures[f"{mode}_c{clients}_p95_ms"] = level["p95_ms"]
                if level["p95_ms"] < P95_CEILING_MS:
                    best = max(best, level["rps"])
            figures[f"{mode}_rps_at_p95_under_50ms"] = best
    print("\n" + "\n".join(rows))
    print({k: round(v, 1) for k, v in figures.items() if k.endswith("under_50ms")})
    benchmark.extra_info.update(figures)
    benchmark.pedantic(lambda: None, rounds=1)
    assert figures["open_rps_at_p95_under_50ms"] > 0, "not one level kept p95 under 50 ms"
