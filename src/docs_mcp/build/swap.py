"""Swapping a freshly built folder into place atomically, and telling dead builders from live ones."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


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
