"""Bounds on everything docs-mcp reads, named in one place (documented in ``docs/authoring.md``).

Real documentation stays far below each bound (the largest file of the evaluation corpora is under
0.5 MiB; a manifest is a few KiB; front matter a few lines); hostile or broken input meets one of them
and gets a finding or a protocol error naming the limit, instead of a hang, a traceback or gigabytes
of memory. Every check here runs in time linear in its input.
"""

from __future__ import annotations

import json
import re
from typing import Any

# -- files ---------------------------------------------------------------------------------------
MAX_FILE_BYTES = 8 * 1024 * 1024  # one markdown file; larger ones are an error (split the page)
MAX_MANIFEST_BYTES = 1024 * 1024  # one .docs-mcp.json

# -- YAML front matter ---------------------------------------------------------------------------
MAX_FRONT_MATTER_BYTES = 64 * 1024  # the text between the --- fences
MAX_FRONT_MATTER_DEPTH = 20  # mappings and lists inside one another
# Values after expanding aliases (``*name``): a few hundred bytes of nested aliases ("billion
# laughs") otherwise stand for billions of values.
MAX_FRONT_MATTER_VALUES = 10_000

# -- JSON: hint comments, manifests, JSON-RPC messages -------------------------------------------
MAX_JSON_DEPTH = 64  # objects and arrays inside one another
MAX_JSON_NUMBER_DIGITS = 100  # digits of one integer (Python refuses over 4,300, slowly)

# -- chunks --------------------------------------------------------------------------------------
# Characters of a heading (or title) repeated in every chunk under it: its breadcrumb, heading,
# embedding input and id slug. A longer one is cut there (its own text is kept whole): an 8 MB
# heading repeated in each of its 400 parts took 6.4 GB. Real headings stay under 500.
MAX_REPEATED_HEADING_CHARS = 1_000
# The smallest max_chunk_size a manifest, hint or front matter may set: below it a chunk is a few
# words (1 gave one chunk per character, and fix ran for minutes).
MIN_MAX_CHUNK_SIZE = 100

# -- embedding settings (flags and the root manifest) ---------------------------------------------
# Each is far above any real model or API (OpenAI's largest model has 3,072 dimensions and takes at
# most 2,048 inputs a request): 10**12 dimensions asked for terabytes and ended in a MemoryError.
MAX_EMBEDDING_DIMENSIONS = 16_000
MAX_EMBEDDING_BATCH_SIZE = 10_000
MAX_EMBEDDING_CONCURRENCY = 256

# -- MCP messages ---------------------------------------------------------------------------------
MAX_MESSAGE_BYTES = 64 * 1024  # one JSON-RPC message over stdio (a tool call is a few hundred bytes)

# -- the HTTP transport ---------------------------------------------------------------------------
# Connections held at once; past it the one waiting longest for its request is closed (fewer when
# the descriptor limit is low: docs_mcp.server.transport.http_connections.connection_limit).
MAX_HTTP_CONNECTIONS = 512
HTTP_HEADER_TIMEOUT_SECONDS = 10.0  # for a request's head, from the connection or the previous response
# Index calls (searches, reads) running at once; more wait their turn. Two cores run no more than a
# few at a time, and each search in flight holds its own native (LanceDB) working memory, which the
# process keeps afterwards: the server's peak memory under load grows with this number (issue 23,
# benchmarks/test_memory.py), its latency under load does not once the cores are busy.
MAX_CONCURRENT_INDEX_CALLS = 4

# -- manifest globs ------------------------------------------------------------------------------
MAX_GLOB_LENGTH = 256  # characters of one override pattern
MAX_GLOB_ALTERNATIVES = 64  # patterns one glob stands for once its {a,b} braces are expanded

# -- identifier splitting (search) ---------------------------------------------------------------
# Longer runs of letters and digits are data (hashes, base64, minified code), not names to split;
# generated SDK type names reach ~150 characters (CreatePartnerFieldsPartnersResponse201...).
MAX_IDENTIFIER_LENGTH = 256

__all__ = [
    "HTTP_HEADER_TIMEOUT_SECONDS",
    "MAX_CONCURRENT_INDEX_CALLS",
    "MAX_EMBEDDING_BATCH_SIZE",
    "MAX_EMBEDDING_CONCURRENCY",
    "MAX_EMBEDDING_DIMENSIONS",
    "MAX_FILE_BYTES",
    "MAX_FRONT_MATTER_BYTES",
    "MAX_FRONT_MATTER_DEPTH",
    "MAX_FRONT_MATTER_VALUES",
    "MAX_GLOB_ALTERNATIVES",
    "MAX_GLOB_LENGTH",
    "MAX_HTTP_CONNECTIONS",
    "MAX_IDENTIFIER_LENGTH",
    "MAX_JSON_DEPTH",
    "MAX_JSON_NUMBER_DIGITS",
    "MAX_MANIFEST_BYTES",
    "MAX_MESSAGE_BYTES",
    "MAX_REPEATED_HEADING_CHARS",
    "MIN_MAX_CHUNK_SIZE",
    "LimitExceeded",
    "json_depth_error",
    "loads_json",
]


class LimitExceeded(ValueError):
    """Input over one of the limits above; ``position`` is the character offset where it was found."""

    def __init__(self, message: str, position: int = 0) -> None:
        super().__init__(message)
        self.position = position

    def line_in(self, text: str) -> int:
        """The 1-based line of ``position`` in ``text``."""
        return text.count("\n", 0, self.position) + 1


# A whole JSON string (skipped: brackets inside strings do not nest), one bracket, or the quote of a
# string that never ends. The string alternative cannot backtrack (its two branches never match the
# same character) and the scan stops at an unterminated string, so the scan is linear.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}"]', re.DOTALL)


def json_depth_error(text: str, limit: int = MAX_JSON_DEPTH) -> LimitExceeded | None:
    """The error for JSON ``text`` nesting objects/arrays deeper than ``limit``, else None.

    One linear scan, before parsing: Python's parser recurses once per level and fails with a
    RecursionError near 1,000 levels. Malformed text is left for the parser to report.
    """
    if text.count("[") + text.count("{") <= limit:
        return None  # cannot be deeper (the common case, decided without a scan)
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token == '"':
            return None  # an unterminated string: the parser reports it, nothing after it nests
        if token == "[" or token == "{":
            depth += 1
            if depth > limit:
                return LimitExceeded(
                    f"JSON nested more than {limit} levels deep (MAX_JSON_DEPTH)", match.start()
                )
        elif token == "]" or token == "}":
            depth -= 1
    return None


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_JSON_NUMBER_DIGITS:
        raise LimitExceeded(
            f"a number of {len(digits.lstrip('-'))} digits; at most {MAX_JSON_NUMBER_DIGITS} "
            "(MAX_JSON_NUMBER_DIGITS)"
        )
    return int(digits)


def loads_json(text: str) -> Any:
    """``json.loads`` within the limits: depth at most ``MAX_JSON_DEPTH``, integers of at most
    ``MAX_JSON_NUMBER_DIGITS`` digits.

    Raises:
        LimitExceeded: a limit is exceeded (``position`` says where, when known).
        json.JSONDecodeError: the text is not JSON.
    """
    too_deep = json_depth_error(text)
    if too_deep is not None:
        raise too_deep
    try:
        return json.loads(text, parse_int=_bounded_int)
    except LimitExceeded as error:
        run = re.search(rf"-?[0-9]{{{MAX_JSON_NUMBER_DIGITS + 1},}}", text)
        raise LimitExceeded(str(error), run.start() if run else 0) from None
