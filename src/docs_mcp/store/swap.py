"""Swapping a freshly written index folder into place atomically, and cleaning up after writers that died.

Shared by ``build`` (a new index from docs) and ``artifact.pulling`` (an index from a registry): both write
into a private staging folder beside ``OUT`` (``.OUT.building-PID``, ``.OUT.pulling-PID``) and exchange
it with ``OUT`` at the end, so readers see the old index or the new one, never a partial one, and an
interrupted or failed writer leaves the previous index untouched.

The standard library has no atomic exchange (``os.replace`` twice leaves a moment without ``OUT``).
Measured in ``benchmarks/test_replacements.py::test_swap_exchange_leaves_no_moment_without_an_index``:
during 2,000 swaps a reader opening ``OUT``'s manifest failed 0 times with ``renameat2`` and 1,789
times with two renames.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import sys
from pathlib import Path

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"python": "3.11"}

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
BUILDING = ".building-"
_PID_MAX = 2**22  # Linux's largest pid_max (4,194,304); other systems stay below it


def _renameat2() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def exchange_dirs(new: Path, current: Path) -> None:
    """Swap ``new`` and ``current`` so that ``current`` holds the new content and ``new`` the old.

    On Linux this is one atomic ``renameat2(RENAME_EXCHANGE)``: readers see the old folder or the new
    one, never none. Elsewhere (or on file systems without it) two renames leave a window of
    microseconds. Raises ``OSError`` when neither works.
    """
    function = _renameat2()
    if function is not None:
        result = function(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(current), _RENAME_EXCHANGE)
        if result == 0:
            return
    parked = new.with_name(new.name + ".old")
    os.replace(current, parked)
    os.replace(new, current)
    os.replace(parked, new)


def pid_in_name(text: str) -> int | None:
    """The process id a staging or partial file's name ends with, or None when ``text`` is not one:
    ASCII digits of a number a pid can be (a stray ``.out.building-²`` or one of 30 digits beside the
    index made ``int()`` or ``os.kill`` raise, and the build die with a traceback)."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(_PID_MAX)):
        return None
    pid = int(text)
    return pid if 0 < pid <= _PID_MAX else None


def pid_alive(pid: int) -> bool:
    """Whether a process with id ``pid`` exists (on this machine)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def new_staging_dir(out: Path, marker: str = BUILDING) -> Path:
    """A fresh, empty staging folder ``.OUT<marker><pid>`` for writing ``out`` (stale ones of dead
    writers with the same marker are removed first)."""
    _clean_stale(out, marker)
    staging = out.parent / f".{out.name}{marker}{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def swap_in(staging: Path, out: Path) -> None:
    """Make ``staging``'s content the content of ``out``; ``staging`` then holds the old index (if any)."""
    if out.exists():
        exchange_dirs(staging, out)
    else:
        os.replace(staging, out)


def _clean_stale(out: Path, marker: str) -> None:
    """Remove staging folders of writers that died (their process is gone)."""
    prefix = f".{out.name}{marker}"
    if not out.parent.is_dir():
        return
    for entry in out.parent.iterdir():
        pid = pid_in_name(entry.name[len(prefix) :])
        if entry.name.startswith(prefix) and pid is not None and not pid_alive(pid):
            shutil.rmtree(entry, ignore_errors=True)
