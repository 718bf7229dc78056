"""The opt-in ``docs_feedback`` tool (``serve --feedback-log FILE``): an agent reports whether an answer
helped, and the docs owner reads which questions the docs fail.

Each report is one JSON line appended to the file: the time, the index build it was about, the query,
the chunk ids it judged, a score and a short reason. Lines are written whole under a lock (one
``write`` of one line to a file opened for appending), so concurrent clients never interleave.

A line is never left torn: a write that fails part way (a full disk) is cut back off, the report
answers that it was not recorded (one log line, no traceback), and a file whose last line lacks its
newline (a crash mid-write, another writer) gets one before the next line, so no report is ever
glued to a broken one.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError, DocsMcpError
from docs_mcp.search.types import QUERY_MAX_LENGTH
from docs_mcp.server.tools.arguments import ArgumentValidator
from docs_mcp.server.tools.tool_schema import JsonSchema

_log = logging.getLogger(__name__)

FEEDBACK_TOOL = "docs_feedback"
SCORE_MIN, SCORE_MAX = 1, 5
REASON_MAX_LENGTH = 500
CHUNK_IDS_MAX = 20

FEEDBACK_DESCRIPTION = (
    "Tell the documentation's owner whether the sections you found answered the question. Call it "
    "once per question when you can judge: the query you searched, the chunk ids you used, a score "
    f"from {SCORE_MIN} (no help: the docs lack it) to {SCORE_MAX} (fully answered), and a short reason "
    "(what was missing or wrong). Nothing personal: no user data, no code."
)


def feedback_input_schema() -> JsonSchema:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": QUERY_MAX_LENGTH},
            "chunk_ids": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 1000},
                "maxItems": CHUNK_IDS_MAX,
            },
            "score": {"type": "integer", "minimum": SCORE_MIN, "maximum": SCORE_MAX},
            "reason": {"type": "string", "maxLength": REASON_MAX_LENGTH},
        },
        "required": ["query", "score"],
        "additionalProperties": False,
    }


def feedback_output_schema() -> JsonSchema:
    return {
        "type": "object",
        "properties": {"recorded": {"type": "boolean"}},
        "required": ["recorded"],
    }


class FeedbackLog:
    """Appends reports about one index (``identity``) to ``path``."""

    def __init__(self, path: Path, identity: str) -> None:
        """Raises ``ConfigError`` when ``path`` cannot be appended to (checked at start-up)."""
        try:
            with path.open("a", encoding="utf-8"):
                pass
        except OSError as error:
            raise ConfigError(
                f"--feedback-log {str(path)!r} cannot be written ({error.strerror}): give a file in a "
                "folder this process may write"
            ) from error
        self.path = path
        self._identity = identity
        self._lock = threading.Lock()
        self._arguments = ArgumentValidator(FEEDBACK_TOOL, feedback_input_schema())

    def report(self, arguments: Mapping[str, Any] | None) -> tuple[dict[str, Any], str]:
        """Validate and append one report. Raises ``InvalidArguments`` for a malformed one."""
        values = self._arguments.validate(arguments)
        record = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "index": self._identity,
            "query": values["query"],
            "chunk_ids": list(values.get("chunk_ids", [])),
            "score": values["score"],
            "reason": values.get("reason", ""),
        }
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            with self._lock:
                append_line(self.path, line.encode())
        except OSError as error:
            reason = error.strerror or type(error).__name__
            _log.warning("docs_feedback: a report was not recorded in %s: %s", self.path, reason)
            raise DocsMcpError(
                f"The feedback was not recorded ({reason}); the server's log says so."
            ) from None
        return {"recorded": True}, "Recorded: thank you."


def append_line(path: Path, line: bytes) -> None:
    """Append ``line`` (ending in a newline) to ``path`` whole or not at all.

    Raises ``OSError`` when it cannot be written; the file is then as it was."""
    descriptor = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        start = os.fstat(descriptor).st_size
        if start and os.pread(descriptor, 1, start - 1) != b"\n":
            line = b"\n" + line  # the last line was torn: end it, so this one stands alone
        try:
            written = os.write(descriptor, line)
            if written != len(line):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError:
            os.ftruncate(descriptor, start)  # cut back what part of the line was written
            raise
    finally:
        os.close(descriptor)
