"""Path arguments, checked once at the edge: a path the operating system would refuse for its shape
(a name over 255 bytes, a whole path over 4,096) is a usage error naming the flag, not an
``OSError`` traceback from deep inside the first command that touches it."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["path_argument"]

# Linux's NAME_MAX and PATH_MAX (the limits of every file system it mounts for us: ext4, xfs, tmpfs,
# overlayfs); read from the system where it says.
_NAME_MAX = 255
_PATH_MAX = 4096


def path_argument(text: str) -> Path:
    """``text`` as a ``Path`` (argparse ``type=``); raises ``ArgumentTypeError`` for an empty path,
    a NUL byte, a component over 255 bytes or a path over 4,096 bytes."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path: give a file or folder")
    if "\0" in text:
        raise argparse.ArgumentTypeError("a path cannot hold a NUL character")
    encoded = os.fsencode(text)
    if len(encoded) >= _PATH_MAX:
        raise argparse.ArgumentTypeError(f"a path of {len(encoded):,} bytes; the limit is {_PATH_MAX - 1:,}")
    longest = max(encoded.split(b"/"), key=len)
    if len(longest) > _NAME_MAX:
        shown = os.fsdecode(longest[:40])
        raise argparse.ArgumentTypeError(
            f"the name {shown!r}... is {len(longest):,} bytes; "
            f"a file or folder name holds at most {_NAME_MAX}"
        )
    return Path(text)
