"""The scripted model turns of the agent-eval tests (played by testkit.model_players.Scripted)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")
SCRIPTED = DATA / "scripted.yaml"

SCRIPTS: dict[str, list[dict[str, Any]]] = {
    "docs-flow": [
        {"call": "search_docs", "args": {"query": "retry a failed payment safely", "limit": 3}},
        {"call": "get_doc", "args": {"chunk_id": "$first_hit"}},
        {
            "call": "write_file",
            "args": {"path": "notes.md", "content": "Retries are safe: idempotency keys.\n"},
        },
        {"say": "Retries are made safe by idempotency keys."},
    ],
    "malformed": [
        {"call": "search_docs", "raw": '{"query": "unterminated'},
        {"call": "read_file", "args": {"path": "given.txt"}},
        {"say": "It says: the given text"},
    ],
    "escape": [
        {
            "calls": [
                {"call": "write_file", "args": {"path": "../outside.txt", "content": "out"}},
                {"call": "read_file", "args": {"path": "/etc/hostname"}},
                {"call": "no_such_tool", "args": {}},
            ]
        },
        {"call": "list_files", "args": {}},
        {"say": "listed"},
    ],
    "rate-limited": [
        {"call": "list_files", "args": {}, "fail": 429, "times": 2, "retry_after": 0.05},
        {"say": "fine", "fail": 503, "times": 1, "retry_after": 0.05},
    ],
    "forever": [{"call": "list_files", "args": {}}],
    "wrong": [{"say": "the wrong thing"}],
}
