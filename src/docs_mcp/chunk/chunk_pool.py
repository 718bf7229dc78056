"""Chunking spread over processes: this process takes one share, helper processes the others.

Chunking is CPU-bound pure Python, so only processes help. The helpers are plain ``python -m
docs_mcp.chunk.chunk_pool`` subprocesses fed pickled jobs on stdin, not a ``multiprocessing`` pool:

- ``fork`` is unsafe once the caller runs threads (LanceDB, the embedding thread pool);
- ``spawn`` and ``forkserver`` re-import the caller's ``__main__`` in every worker, which crashes
  (BrokenProcessPool) when the caller is ``python -`` reading stdin and re-runs the top-level code
  of a script without an ``if __name__ == "__main__"`` guard.

A helper that cannot start, dies, answers garbage or stops answering costs nothing but time: its
share is chunked in this process, so the result is always the same as chunking everything here. Every
write to a helper and every read from it has a deadline (a stopped or stuck helper hung the build
forever): ``wait`` seconds to take its share, and ``wait`` plus ten times what this process took for
its own share to answer.

Measured against ``concurrent.futures.ProcessPoolExecutor`` (forkserver, the start method that is safe
in a threaded caller) and one process in the same run (``benchmarks/test_replacements.py::
test_chunk_pool_against_the_standard_process_pool``, all 3,958 SDK corpus files, 2 workers, Python
3.11, quiet machine): one process 3.34 s, the executor 2.03 s, this pool 2.15 s (1.56x one process,
0.94x the executor). So it is kept for the safety above, not for speed over the executor; its gates
(``thresholds.toml``) say it must beat one process and stay near the executor. Helpers start at
construction, so their imports (~0.2 s) overlap with the caller reading files; ``load_corpus`` uses
them from ``PARALLEL_THRESHOLD`` files on.
"""

from __future__ import annotations

import os
import pickle
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from docs_mcp.chunk.chunking import ChunkedFile, chunk_file
from docs_mcp.chunk.chunks import FileSettings

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"python": "3.11"}

Job = tuple[str, str, FileSettings]  # (decoded text, posix path, resolved settings)
# The folder that holds the docs_mcp package, so helpers import the same code as this process even
# when it was put on sys.path by hand (tests, a source checkout).
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
# Seconds a helper may take beyond its fair share: its start-up (imports, ~0.2 s, far more on a
# loaded machine) and a share that is slower than this process's. Past it, the share is done here.
HELPER_WAIT_SECONDS = 60.0
_SLOWER_THAN_OURS = 10  # times this process's own share a helper may take besides


class ChunkPool:
    """``workers - 1`` helper processes, started at construction so their start-up (imports) overlaps
    with the caller reading files. Use as a context manager. :meth:`chunk` may be called again (a
    build chunks its files in windows, so that it never holds them all): each call with helpers ends
    them and, unless told it was the ``last``, starts the next call's, so their start-up overlaps
    with the caller's next window."""

    def __init__(self, workers: int, python: str | None = None, wait: float = HELPER_WAIT_SECONDS) -> None:
        self._wait = wait
        self._python = python or sys.executable
        self._workers = max(0, workers - 1)
        self._helpers: list[subprocess.Popen[bytes] | None] = self._start()

    def _start(self) -> list[subprocess.Popen[bytes] | None]:
        return [_start_helper(self._python) for _ in range(self._workers)]

    def __enter__(self) -> ChunkPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop helpers that are still running (after an error in the caller). Raises nothing."""
        for helper in self._helpers:
            if helper is None:
                continue
            if helper.poll() is None:
                helper.kill()
            for stream in (helper.stdin, helper.stdout):
                if stream is not None:
                    stream.close()
            helper.wait()
        self._helpers = []

    def chunk(self, jobs: Sequence[Job], *, last: bool = True) -> Iterator[ChunkedFile]:
        """Chunk every job; results in job order, equal to ``map(chunk_file, *zip(*jobs))``. Without
        helpers each result comes as soon as it is made, with helpers once all are done. Unless
        ``last``, new helpers are started for the next call.

        Raises only what ``chunk_file`` raises in this process (nothing for bad content).
        """
        helpers = [helper for helper in self._helpers if helper is not None]
        if not helpers:
            self._helpers = []
            self._workers = 0  # no helper started: the next calls chunk here as well
            for job in jobs:
                yield chunk_file(*job)
            return
        shares = _partition(jobs, 1 + len(helpers))
        # Each helper gets its whole share before this process starts on its own: a helper reads all
        # of its input before it chunks, and feeding it from a thread beside this CPU-bound loop
        # starved that thread of the GIL (one 64 KiB pipe write per 5 ms switch interval), so the
        # helpers started late and two processes took as long as one.
        pairs = list(zip(helpers, shares[1:], strict=True))
        sent = [_send(helper, [jobs[i] for i in share], self._wait) for helper, share in pairs]
        results: dict[int, ChunkedFile] = {}
        started = time.monotonic()
        for index in shares[0]:
            results[index] = chunk_file(*jobs[index])
        deadline = time.monotonic() + self._wait + _SLOWER_THAN_OURS * (time.monotonic() - started)
        for (helper, share), ok in zip(pairs, sent, strict=True):
            chunked = _receive(helper, deadline) if ok else None
            if chunked is None or len(chunked) != len(share):
                chunked = [chunk_file(*jobs[i]) for i in share]  # the helper failed: do it here
            results.update(zip(share, chunked, strict=True))
        self.close()  # every helper has answered or failed: close their pipes, reap them
        if not last:
            self._helpers = self._start()  # their start-up overlaps with the caller's next window
        yield from (results[index] for index in range(len(jobs)))


def _partition(jobs: Sequence[Job], count: int) -> list[list[int]]:
    """Job indices in ``count`` shares of about equal text size (largest first, to the lightest)."""
    shares: list[list[int]] = [[] for _ in range(count)]
    loads = [0] * count
    for index in sorted(range(len(jobs)), key=lambda i: len(jobs[i][0]), reverse=True):
        lightest = loads.index(min(loads))
        shares[lightest].append(index)
        loads[lightest] += len(jobs[index][0]) + 200  # a file costs something even when tiny
    return [sorted(share) for share in shares]


def _start_helper(python: str) -> subprocess.Popen[bytes] | None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_PACKAGE_ROOT, env.get("PYTHONPATH")) if p)
    try:
        return subprocess.Popen(
            [python, "-m", "docs_mcp.chunk.chunk_pool"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
    except OSError:
        return None  # no helper: this process chunks its share


def _send(helper: subprocess.Popen[bytes], jobs: list[Job], wait: float) -> bool:
    """Write ``jobs`` to ``helper`` and close its input; False when it cannot take them within
    ``wait`` seconds (then it is killed)."""
    assert helper.stdin is not None
    data = memoryview(pickle.dumps(jobs, protocol=pickle.HIGHEST_PROTOCOL))
    deadline = time.monotonic() + wait
    try:
        fd = helper.stdin.fileno()
        os.set_blocking(fd, False)
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_WRITE)
            while data:
                if not selector.select(deadline - time.monotonic()):
                    helper.kill()  # it stopped reading its share
                    return False
                data = data[os.write(fd, data[: 1 << 16]) :]
        helper.stdin.close()
    except OSError:  # it died (BrokenPipeError) or never started properly
        return False
    return True


def _receive(helper: subprocess.Popen[bytes], deadline: float) -> list[ChunkedFile] | None:
    """The helper's answer; None when it failed in any way or had none by ``deadline`` (then it is
    killed)."""
    assert helper.stdout is not None
    chunks: list[bytes] = []
    try:
        fd = helper.stdout.fileno()
        os.set_blocking(fd, False)
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while True:
                if not selector.select(max(0.0, deadline - time.monotonic())):
                    helper.kill()  # stopped or stuck: its share is done here
                    return None
                if not (chunk := os.read(fd, 1 << 20)):
                    break
                chunks.append(chunk)
        if helper.wait() != 0:
            return None
        answer = pickle.loads(b"".join(chunks))  # our own child process, on our own pipe
    except (OSError, pickle.UnpicklingError, EOFError, ValueError):
        return None
    return answer if isinstance(answer, list) else None


def _serve() -> None:
    """Helper side: read pickled jobs from stdin, write the pickled list of ChunkedFile to stdout."""
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing printed by imported code may corrupt the answer
    jobs: list[Job] = pickle.loads(sys.stdin.buffer.read())  # from our parent
    out.write(pickle.dumps([chunk_file(*job) for job in jobs], protocol=pickle.HIGHEST_PROTOCOL))
    out.flush()


def _main() -> None:
    try:
        _serve()
    except (EOFError, pickle.UnpicklingError, OSError, KeyboardInterrupt):
        # The parent is gone (killed while sending, or its end of the pipes closed, or Ctrl-C reached
        # the whole process group): nobody waits for an answer, and a traceback would only be noise
        # on the terminal. Exit at once, without flushing into a closed pipe.
        os._exit(1)


if __name__ == "__main__":
    _main()
