"""Token budgets for tool answers: how an answer is counted, and fitting one into a budget.

An answer is counted as its whole tool result serialized the way it goes over the wire: the
``structuredContent`` JSON plus the text content (JSON-escaped), plus a fixed allowance for the
JSON-RPC envelope and the transport's framing. The estimate is one token per 3 bytes of UTF-8: a
conservative rule for English prose and code with the common BPE tokenizers (they average about 4
bytes a token on English, fewer on JSON punctuation, identifiers and non-Latin scripts), so an
answer within the budget by this count is within it for the client too.

The default, 8,000 tokens, stays below the size at which Claude Code warns about a large MCP
result (10,000 tokens) and well below the size at which it cuts one off (25,000 by default,
``MAX_MCP_OUTPUT_TOKENS``), with room for a client whose tokenizer counts more tokens than ours.

Long sections are cut into windows at block boundaries (:func:`split_points`): between blocks
(a blank line: paragraphs, list items separated by a blank line, code blocks), else between lines
(list items, table rows, code lines), else between words. The server does not import the chunker;
this splitter needs nothing but the markdown.

A cursor carries the budget its answer was fitted to (``cursor.py``): continued with the cursor
alone, the next page or window keeps it; a ``max_tokens`` passed with the cursor wins
(:func:`answer_budget`).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from docs_mcp.errors import ConfigError

__all__ = [
    "BYTES_PER_TOKEN",
    "MAX_TOKENS_DEFAULT",
    "MAX_TOKENS_ENV",
    "MAX_TOKENS_MAX",
    "MAX_TOKENS_MIN",
    "answer_budget",
    "answer_bytes",
    "budget_bytes",
    "estimate_tokens",
    "largest_fitting",
    "max_tokens_from_env",
    "split_points",
]

BYTES_PER_TOKEN = 3
MAX_TOKENS_MIN, MAX_TOKENS_MAX = 1_000, 20_000
MAX_TOKENS_DEFAULT = 8_000
MAX_TOKENS_ENV = "DOCS_MCP_MAX_TOKENS"
# The JSON-RPC envelope ({"jsonrpc":"2.0","id":...,"result":{...}}) and the SSE framing of the HTTP
# transport ("event: message\ndata: " ... "\n\n"), with room for a long id.
FRAME_BYTES = 160
# What the MCP SDK writes into every tool result beside its content: "_meta" with the server's name,
# title and version, "isError" and "resultType" (about 150 bytes, with room for a longer version).
RESULT_FIELDS_BYTES = 200
ENVELOPE_BYTES = FRAME_BYTES + RESULT_FIELDS_BYTES

_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_SPACE = re.compile(r"\s+")
_LINE_BREAK = re.compile(r"\n")


def answer_budget(
    arguments: Mapping[str, Any] | None, validated: Mapping[str, Any], carried: int | None
) -> int:
    """The ``max_tokens`` an answer is fitted to: the one the call passes (explicit wins), else the
    one its cursor carries (``carried``: a continued answer keeps its budget), else the default the
    validator filled into ``validated``."""
    if carried is not None and not (arguments and "max_tokens" in arguments):
        return carried
    return int(validated["max_tokens"])


def estimate_tokens(size: int) -> int:
    """The estimated tokens of ``size`` bytes of UTF-8 (one per 3 bytes, rounded up)."""
    return math.ceil(size / BYTES_PER_TOKEN)


def budget_bytes(max_tokens: int) -> int:
    """The bytes an answer of ``max_tokens`` may take."""
    return max_tokens * BYTES_PER_TOKEN


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def answer_bytes(structured: Mapping[str, Any], text: str) -> int:
    """The bytes of a tool result holding ``structured`` and ``text``, envelope included."""
    return (
        _json_bytes({"content": [{"type": "text", "text": text}], "structuredContent": structured})
        + ENVELOPE_BYTES
    )


def largest_fitting(low: int, high: int, fits: Callable[[int], bool]) -> int | None:
    """The largest ``n`` in ``low..high`` with ``fits(n)``, for a ``fits`` that is true up to some
    point and false after it; None when even ``low`` does not fit. Binary search: a few renders."""
    if not fits(low):
        return None
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def split_points(markdown: str, start: int, reach: int) -> tuple[list[int], list[int], list[int]]:
    """Where ``markdown[start:]`` may be cut within ``reach`` characters, as offsets into
    ``markdown``: after a blank line (between blocks), after a line break, after a run of spaces
    (between words). Each list is ascending and ends with the furthest offset in reach (the end of
    the text when it is in reach): a window never holds more characters than its budget has bytes."""
    stop = min(len(markdown), start + reach)
    blocks = [m.end() for m in _BLANK_LINE.finditer(markdown, start, stop) if m.end() < stop]
    lines = [m.end() for m in _LINE_BREAK.finditer(markdown, start, stop) if m.end() < stop]
    words = [m.end() for m in _SPACE.finditer(markdown, start, stop) if start < m.end() < stop]
    return [*blocks, stop], [*lines, stop], [*words, stop]


def max_tokens_from_env(environ: Mapping[str, str] | None = None) -> int:
    """The server's default budget: ``DOCS_MCP_MAX_TOKENS`` when set, else ``MAX_TOKENS_DEFAULT``.

    Raises ``ConfigError`` for a value that is not an integer in the documented range."""
    value = (os.environ if environ is None else environ).get(MAX_TOKENS_ENV, "").strip()
    return parse_max_tokens(value, MAX_TOKENS_ENV) if value else MAX_TOKENS_DEFAULT


def parse_max_tokens(value: str, where: str) -> int:
    """``value`` as a budget. Raises ``ConfigError`` naming ``where`` when it is out of range."""
    try:
        tokens = int(value)
    except ValueError:
        tokens = -1
    if not MAX_TOKENS_MIN <= tokens <= MAX_TOKENS_MAX:
        raise ConfigError(
            f"{where}={value!r} is not a token budget: use an integer from {MAX_TOKENS_MIN} to "
            f"{MAX_TOKENS_MAX} (default {MAX_TOKENS_DEFAULT})"
        )
    return tokens
