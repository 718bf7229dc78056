"""Running ``docs-mcp`` as a real process for the benchmarks: its command, an HTTP server, memory.

``peak_rss`` of a finished command comes from the kernel's high-water mark of that one child
(``ru_maxrss``); a running server's from ``VmHWM`` in ``/proc``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

REPO_ROOT = Path(__file__).resolve().parents[1]


def env() -> dict[str, str]:
    values = {**os.environ, "PYTHONUNBUFFERED": "1"}
    values["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "src"), values.get("PYTHONPATH", "")])
    return values


def docs_mcp(*args: str) -> list[str]:
    """The real CLI, as a user runs it."""
    return [sys.executable, "-m", "docs_mcp", *args]


def serve_command(index: Path, *extra: str) -> list[str]:
    return docs_mcp("serve", "--index", str(index), *extra)


def memory_mib(pid: int, field: str = "VmRSS") -> float:
    """``VmRSS`` (resident now) or ``VmHWM`` (peak resident) of a running process, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for process {pid}")


def _children(pid: int) -> list[int]:
    """The live children of a running process (each thread's: a child may be a thread's)."""
    return [
        int(c)
        for task in Path(f"/proc/{pid}/task").iterdir()
        for c in (task / "children").read_text().split()
    ]


def tree_memory_mib(pid: int, field: str = "VmRSS") -> float:
    """:func:`memory_mib` of a running process and all its descendants, summed. For ``VmHWM`` the sum
    of the peaks, which is at least the peak of the sum."""
    return memory_mib(pid, field) + sum(tree_memory_mib(child, field) for child in _children(pid))


def served_child(*words: str) -> int:
    """The pid of this process's live descendant whose command line holds ``serve`` and every one of
    ``words`` (a stdio server the MCP client spawned, which does not tell its pid)."""
    pending = _children(os.getpid())
    while pending:
        pid = pending.pop()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
        if "serve" in argv and all(any(word in arg for arg in argv) for word in words):
            return pid
        pending += _children(pid)
    raise AssertionError(f"no running docs-mcp serve with {words}")


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) a running process has used so far: its threads, the children it
    has waited for, and its live descendants (the same, recursively)."""
    # /proc/PID/stat fields 14-17 (utime, stime, cutime, cstime), after the parenthesised name.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = sum(int(fields[index]) for index in (11, 12, 13, 14)) / _CLOCK_TICKS
    return own + sum(tree_cpu_seconds(child) for child in _children(pid))


# Runs the command and prints its peak RSS in KiB. A child's ru_maxrss starts from the RSS of the
# process that forked it (Linux carries the old memory's high-water mark across exec), so the command
# is forked from this small interpreter, never from the large pytest process.
_PEAK_WRAPPER = (
    "import resource, subprocess, sys\n"
    "code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    "sys.exit(code)\n"
)


def peak_rss(command: Sequence[str], timeout: float = 1500) -> tuple[float, float]:
    """Run ``command`` to completion: (seconds, peak resident MiB). Raises if it fails or hangs."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _PEAK_WRAPPER, *command],
        capture_output=True,
        text=True,
        env=env(),
        timeout=timeout,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise AssertionError(f"{command} failed: {done.stderr[-2000:]}")
    return seconds, int(done.stdout.split()[-1]) / 1024  # KiB on Linux


class Running(NamedTuple):
    """A ``docs-mcp serve`` over HTTP: the process, the URL of /mcp, and the seconds from spawn to
    listening (``initialize`` and ``tools/list`` answered from the manifest) and to its index open."""

    process: subprocess.Popen[str]
    url: str
    listening_s: float
    ready_s: float


@contextmanager
def http_process(command: list[str]) -> Iterator[Running]:
    """Run ``command`` (a ``docs-mcp serve`` over HTTP on port 0, on 127.0.0.1) until the block ends,
    yielding once its index is open (the "serving ... ready in" line, docs_mcp.server.startup.launch)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env(),
    )
    assert process.stderr is not None
    url, listening, ready = "", 0.0, 0.0
    for line in process.stderr:  # bounded by the calling test's timeout
        found = re.search(r"at (http://\S+/mcp)", line)
        if found and not url:
            url, listening = found.group(1), time.perf_counter() - started
        if found and re.search(r"ready in .* at http://", line):
            ready = time.perf_counter() - started
            print(f"\n{line.strip()}")  # the server's own open + warm-up time
            break
    drain = threading.Thread(target=process.stderr.read, daemon=True)  # keep the pipe drained
    drain.start()
    try:
        assert url and ready, "server did not start"
        yield Running(process, url, listening, ready)
    finally:
        process.terminate()
        process.wait(30)
        drain.join(30)
        process.stderr.close()  # else an unclosed-file ResourceWarning fails the session (-W error)


@contextmanager
def http_server(index: Path, *extra: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``docs-mcp serve --transport http --port 0 [extra...]`` on 127.0.0.1: (process, URL of /mcp)."""
    with http_process(serve_command(index, "--transport", "http", "--port", "0", *extra)) as running:
        yield running.process, running.url
