"""Connection pressure on the real HTTP server, run by hand (not a pytest file): idle connections
that never send a request, plus many concurrent clients searching, against a server whose descriptor
limit is 1,024 (a common default). Prints requests answered, failures by kind, latency p50/p95 and the
server's peak resident memory. Everything binds and connects to 127.0.0.1, bounded in count and time.

    .venv/bin/python benchmarks/connection_pressure.py [--src SRC] [--idle 1100] [--clients 300]

``--src`` runs the server from another checkout's ``src`` (to measure before a change).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BODY = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": "retry a failed payment", "limit": 5}},
    }
).encode()
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _limit_descriptors() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", default=str(REPO / "src"))
    parser.add_argument("--idle", type=int, default=1100)
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--requests", type=int, default=5, help="per client")
    options = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    env = {"PYTHONPATH": options.src, "PATH": "/usr/bin:/bin"}
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        subprocess.run(
            [sys.executable, "-m", "docs_mcp", "build", "--docs-dir", str(REPO / "examples" / "docs"),
             "--out", str(index), "--quiet"], check=True, env=env, capture_output=True,
        )  # fmt: skip
        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "docs_mcp", "serve", "--index", str(index), "--transport", "http",
             "--port", str(port)], env=env, stderr=subprocess.PIPE, text=True,
            preexec_fn=_limit_descriptors,
        )  # fmt: skip
        try:
            _wait_until_up(port)
            _run(server, port, options)
        finally:
            server.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(20)
            if server.poll() is None:
                server.kill()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_up(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        time.sleep(0.1)
    raise SystemExit("the server did not start")


def _run(server: subprocess.Popen[str], port: int, options: argparse.Namespace) -> None:
    idle = []
    for _ in range(options.idle):
        try:
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        except OSError:
            break
    print(f"idle connections opened: {len(idle)}")
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    peak = [0.0]
    done = threading.Event()

    def watch_memory() -> None:
        while not done.wait(0.1):
            with contextlib.suppress(OSError):
                peak[0] = max(peak[0], _rss_mib(server.pid))

    def client() -> None:
        for _ in range(options.requests):
            started = time.monotonic()
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                connection.request("POST", "/mcp", BODY, HEADERS)
                response = connection.getresponse()
                answer = response.read()
                connection.close()
                if response.status != 200:
                    failures[f"HTTP {response.status}"] += 1
                elif b'"isError":true' in answer:
                    failures["tool error (internal error)"] += 1
                else:
                    latencies.append(time.monotonic() - started)
            except OSError as error:
                failures[type(error).__name__] += 1

    watcher = threading.Thread(target=watch_memory, daemon=True)
    watcher.start()
    started = time.monotonic()
    threads = [threading.Thread(target=client) for _ in range(options.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    elapsed = time.monotonic() - started
    done.set()
    for sock in idle:
        sock.close()
    total = options.clients * options.requests
    print(f"requests: {total}, answered: {len(latencies)}, failed: {sum(failures.values())} {dict(failures)}")
    if latencies:
        ordered = sorted(latencies)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        p50 = statistics.median(ordered)
        print(f"latency p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms; {elapsed:.1f} s")
    print(f"server peak resident memory: {peak[0]:.0f} MiB")


if __name__ == "__main__":
    main()
