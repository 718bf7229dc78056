"""Reading docs files safely: regular files only, and never more than a size limit.

A FIFO named ``p.md`` blocks ``read()`` forever and a character device named ``x.md`` (``/dev/zero``)
is read until memory runs out. The walk skips such files by their ``stat`` (without opening them:
opening a device can have effects), and a file is opened non-blocking and checked again on its open
descriptor, so one swapped in between the walk and the read is refused too.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from docs_mcp.errors import Finding

__all__ = ["NOT_REGULAR_RULE", "FileTooLarge", "NotRegularFile", "read_regular_file", "special_file_kind"]

NOT_REGULAR_RULE = "not-a-regular-file"
_READ_SIZE = 1 << 20


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a folder."""


class FileTooLarge(OSError):
    """The file holds more bytes than the limit it was read with."""


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a special file"


def special_file_kind(path: Path) -> str | None:
    """What ``path`` (symlinks followed) is when it is not a regular file, e.g. ``"a FIFO (named
    pipe)"``; None for a regular file and for a path that cannot be stat'ed (a dangling link or a
    loop: reading it reports why)."""
    try:
        return _kind(os.stat(path).st_mode)
    except OSError:
        return None


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path``.

    Raises:
        NotRegularFile: ``path`` is not a regular file (checked on the open descriptor).
        FileTooLarge: the file holds more than ``limit`` bytes.
        OSError: it cannot be opened or read.
    """
    # Non-blocking, so that opening a FIFO with no writer returns at once instead of waiting.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(descriptor)
        kind = _kind(status.st_mode)
        if kind is not None:
            raise NotRegularFile(f"{kind}, not a regular file")
        if status.st_size > limit:
            raise FileTooLarge(f"file is {status.st_size:,} bytes; at most {limit:,}")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(descriptor, _READ_SIZE):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while being read
                raise FileTooLarge(f"file is over {limit:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def decode_utf8(data: bytes, path: str, findings: list[Finding]) -> str | None:
    """``data`` as text, or None after an ``invalid-encoding`` finding naming the line and byte."""
    try:
        # Strict: a file that is not UTF-8 would index as mojibake. A BOM stays for the chunker.
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start : error.start + 1].hex()
        message = f"not valid UTF-8: byte 0x{byte} at offset {error.start}; re-save the file as UTF-8"
        findings.append(Finding(path, line, "error", message, "invalid-encoding"))
        return None
