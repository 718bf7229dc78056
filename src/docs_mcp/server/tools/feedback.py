"""The opt-in ``docs_feedback`` tool (``serve --feedback-log FILE``): an agent reports whether an answer
helped, and the docs owner reads which questions the docs fail.

Each report is one JSON line appended to the file: the time, the index build it was about, the query,
the chunk ids it judged, a score and a short reason. Lines are written whole under a lock (one
``write`` of one line to a file opened for appending), so concurrent clients never interleave.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError
from docs_mcp.search.types import QUERY_MAX_LENGTH
from docs_mcp.server.tools.arguments import ArgumentValidator
from docs_mcp.server.tools.tool_schema import JsonSchema

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
        with self._lock, self.path.open("a", encoding="utf-8") as log:
            log.write(line)
        return {"recorded": True}, "Recorded: thank you."
