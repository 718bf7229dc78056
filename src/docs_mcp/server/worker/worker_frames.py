"""The frames the stdio server and its index worker exchange over a pipe: a call number and a length,
then a pickle.

Pickle, because both ends are this package's code in the same environment, one process started by
the other, and what crosses (requests, search pages, sections, errors) is this package's own
dataclasses and exceptions: no schema to keep twice. Nothing else ever writes to these pipes. The
call number is outside the pickle, so a reply that cannot be unpickled still fails only its own call.
"""

from __future__ import annotations

import pickle
import struct
from dataclasses import dataclass
from typing import IO, Any

__all__ = ["Failure", "Frame", "Request", "read_frame", "write_frame"]

_HEADER = struct.Struct(">QQ")  # call number, payload length


@dataclass(frozen=True)
class Request:
    """Run ``method(*args)`` on the worker's index ``handle`` (``open``: its path; ``close``: no
    reply)."""

    handle: int
    method: str
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Failure:
    """A reply: the call raised ``error``. Any other reply is the call's value."""

    error: BaseException


@dataclass(frozen=True)
class Frame:
    """One frame as read: its call number and its pickled message (see :meth:`message`)."""

    call: int
    payload: bytes

    def message(self) -> Any:
        """The message. Raises what unpickling raises."""
        return pickle.loads(self.payload)


def write_frame(stream: IO[bytes], call: int, message: Any) -> None:
    """Write ``message`` as call ``call``'s frame and flush. Raises what pickling raises before
    anything is written. The caller serialises writers."""
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(call, len(payload)) + payload)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Frame | None:
    """The next frame; None at the end of the stream (also within a frame: the writer ended)."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    call, length = _HEADER.unpack(header)
    payload = stream.read(length)
    if len(payload) < length:
        return None
    return Frame(call, payload)
