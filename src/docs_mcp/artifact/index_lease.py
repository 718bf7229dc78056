"""Who is serving an unpacked index of the cache: a shared ``flock`` per index, held while serving.

Any number of servers (two MCP entries in one client, replicas on one volume) share one cache, each
following its own tags. A server holds a shared lock on the lock file of every index it serves or
is about to unpack; clean-up removes an index only under that file's exclusive lock, taken without
waiting, so it never removes what any process holds. The kernel drops a dead process's locks, so
nothing is left held by a server that was killed.

A remover unlinks the lock file before it lets go; a holder that was waiting on it sees that the
file it locked is no longer the one at the path and locks the new one instead (the usual pattern
for lock files that are removed).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from collections.abc import Iterator
from pathlib import Path

__all__ = ["IndexLease", "exclusive", "hold"]

logger = logging.getLogger(__name__)


class IndexLease:
    """A shared lock on one index's lock file; :meth:`release` (or process exit) lets go."""

    def __init__(self, lock_file: Path, fd: int | None) -> None:
        self.lock_file = lock_file
        self._fd = fd

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops its lock
            self._fd = None


def _is_current(fd: int, lock_file: Path) -> bool:
    """Whether ``fd`` is still the file at ``lock_file`` (a remover may have unlinked it meanwhile)."""
    try:
        at_path = lock_file.stat()
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (opened.st_dev, opened.st_ino) == (at_path.st_dev, at_path.st_ino)


def hold(lock_file: Path) -> IndexLease:
    """A shared lock on ``lock_file`` (created if missing); waits only while a remover holds it (the
    time to delete one folder). A cache that cannot be written (a read-only volume) gives an unheld
    lease: nothing can remove an index from it either."""
    while True:
        try:
            lock_file.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as error:
            logger.debug("no lease on %s: %s", lock_file, error)
            return IndexLease(lock_file, None)
        fcntl.flock(fd, fcntl.LOCK_SH)
        if _is_current(fd, lock_file):
            return IndexLease(lock_file, fd)
        os.close(fd)


@contextlib.contextmanager
def exclusive(lock_file: Path) -> Iterator[bool]:
    """Yields True while this process alone holds ``lock_file`` (nobody serves its index), False
    when someone holds it; never waits. On a True exit the lock file is removed."""
    try:
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError:
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        if not _is_current(fd, lock_file):
            yield False
            return
        yield True
        lock_file.unlink(missing_ok=True)  # before the lock drops: a waiting holder then retries
    finally:
        os.close(fd)
