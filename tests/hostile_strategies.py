"""Hypothesis strategies for hostile input: markdown, YAML front matter, hint comments, manifests and
JSON-RPC messages, as an attacker or a careless user writes them (shared by the fuzz tests).

The fuzz tests are bounded so the whole suite adds well under two minutes to CI on two cores:
``examples(n)`` is ``n`` there (derandomised by the ``ci`` profile); set ``DOCS_MCP_FUZZ_SCALE`` to
run ``n`` times as many locally.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import strategies as st

FUZZ_SCALE = max(1, int(os.environ.get("DOCS_MCP_FUZZ_SCALE", "1")))


def examples(count: int) -> int:
    """``count`` examples, times ``DOCS_MCP_FUZZ_SCALE``."""
    return count * FUZZ_SCALE


def fuzz_timeout(seconds: float) -> float:
    """A per-test timeout for a fuzz test, scaled like its examples."""
    return seconds * FUZZ_SCALE


# -- building blocks -----------------------------------------------------------------------------

_ODD_CHARS = ["\x00", "\x0c", "\x1b", "\u2028", "\ufeff", "\ud7ff", "\U0001f600", "\u0301", "\r", "\t", "\\"]
ODD_TEXT = st.one_of(
    st.text(max_size=40),
    st.lists(st.sampled_from(["a", " ", "#", "-", "*", "`", "<", ">", "[", "]", "{", "}", '"', "'", ":", "|",
                              *_ODD_CHARS]), max_size=60).map("".join),
)  # fmt: skip
# Long runs: what made identifier splitting, hint regexes and globs quadratic.
LONG_RUN = st.builds(
    lambda char, count: char * count,
    st.sampled_from(["a", "aB", "9", "f0", " ", "*", "[", "{", "-", "`", "<!--", "\\"]),
    st.integers(100, 20_000),
)
JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
    st.sampled_from(["h1", "h2", "h3", "file", "\ud800", "x" * 500]),
)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


# What a careless edit or an attacker puts where a scalar belongs: a list, an object, a bool, null,
# a number past every machine type, a fraction, a float overflowing to infinity when converted.
HUGE_COUNT = st.sampled_from([10**6, 2**31, 2**63 - 1, 2**63, 2**64 + 1, 10**30, 10**300])
WRONG_SCALAR = st.one_of(
    st.booleans(),
    st.none(),
    st.lists(JSON_LEAF, max_size=3),
    st.dictionaries(st.text(max_size=5), JSON_LEAF, max_size=3),
    st.sampled_from([-(2**63) - 1, -1, 0, 1.5, 5.0, 1e308, -1e308, 1e-300, "", "1", "h2", "x" * 2000]),
    st.integers(1, 3000).map(lambda n: [[0]] * n),  # a value whose repr is long
    HUGE_COUNT,
)


def _deep(opening: str, closing: str, depth: int) -> str:
    return opening * depth + closing * depth


DEEP_JSON = st.builds(
    _deep, st.sampled_from(["[", '{"a":']), st.sampled_from(["]", "}"]), st.integers(60, 3000)
).map(lambda text: text if text.startswith("[") else text.replace("}", "", 1) + "1}")
HUGE_NUMBER = st.integers(90, 6000).map(lambda digits: "9" * digits)


def json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True)  # lone surrogates become \ud800 escapes


HOSTILE_JSON_TEXT = st.one_of(
    JSON_VALUE.map(json_text),
    DEEP_JSON,
    HUGE_NUMBER,
    ODD_TEXT,
    st.just('{"chunk_by": "h3"'),
    st.builds(lambda n: '{"max_chunk_size": ' + n + "}", HUGE_NUMBER),
)

# -- YAML front matter ---------------------------------------------------------------------------

_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)
YAML_VALUE = st.one_of(
    st.sampled_from([
        "2024-02-30", "2024-01-01 25:61:61", '!!int "abc"', '!!float "zz"', "!!binary ===", "!!set {a, b}",
        "!!python/object:os.system {}", "*undefined", "&a [1, *a]", "[" * 50, "{" * 50, "'unterminated",
        "h3", "yes", "~", "0x1F", "1e999", ".nan", "|\n  block\n  text", "- a\n- b", "{a: 1, a: 2}",
        "? [a, b]\n: c", "!!str", "%TAG ! tag:x,2000:",
    ]),
    ODD_TEXT.map(json.dumps),
    ODD_TEXT,
    HUGE_NUMBER,
    LONG_RUN,
)  # fmt: skip
YAML_KEY = st.sampled_from(
    ["title", "metadata", "mcp_metadata", "mcp_strategy", "mcp_chunking_hint", "date", "x", "<<", "? "]
)
FRONT_MATTER = st.one_of(
    st.lists(st.builds(lambda k, v: f"{k}: {v}", YAML_KEY, YAML_VALUE), max_size=6).map("\n".join),
    st.builds(lambda key: _LAUGHS + f"{key}: *i", YAML_KEY),
    st.integers(25, 3000).map(lambda depth: "x: " + "[" * depth),
    st.integers(25, 400).map(lambda depth: "x:\n" + "".join(" " * n + "-\n" for n in range(depth))),
    ODD_TEXT,
)

# -- markdown ------------------------------------------------------------------------------------

HINT_COMMENT = st.builds(
    lambda keyword, body, pad: f"<!-- {keyword}:{pad}{body}{pad} -->",
    st.sampled_from(["mcp_chunking_hint", "mcp_section_hint", "mcp_metadata", "mcp_bogus", "mcp_"]),
    HOSTILE_JSON_TEXT,
    st.sampled_from(["", " ", " " * 5000, "\n"]),
)
# A heading far longer than any real one: repeated in every part's breadcrumb and embedding input,
# it made memory grow with heading length x parts (issue 19).
LONG_HEADING = st.builds(lambda level, run: "#" * level + " " + run, st.integers(1, 3), LONG_RUN)
BLOCK = st.one_of(
    st.builds(lambda level, text: "#" * level + " " + text, st.integers(1, 7), ODD_TEXT),
    LONG_HEADING,
    ODD_TEXT,
    LONG_RUN,
    HINT_COMMENT,
    st.builds(lambda text: f"```\n{text}\n```", ODD_TEXT),
    st.builds(lambda text: f"| a | b |\n|---|---|\n| {text} | x |", ODD_TEXT),
    st.integers(1, 3000).map(lambda depth: ">" * depth + " quote"),
    st.integers(1, 2000).map(lambda depth: "".join("  " * n + "- item\n" for n in range(min(depth, 300)))),
    st.integers(1, 3000).map(lambda depth: "*" * depth + "emphasis" + "*" * depth),
    st.integers(1, 2000).map(lambda depth: "[" * depth + "link" + "](x)" * depth),
    st.just("<!--" + " unclosed comment"),
)
MARKDOWN = st.builds(
    lambda front, blocks, crlf: (
        (f"---\n{front}\n---\n" if front is not None else "") + ("\r\n" if crlf else "\n").join(blocks)
    ),
    st.one_of(st.none(), FRONT_MATTER),
    st.lists(BLOCK, max_size=8),
    st.booleans(),
)

# -- manifests -----------------------------------------------------------------------------------

GLOB_PIECE = st.sampled_from(
    ["*", "**", "?", "/", "a", ".md", "[a-z]", "[z-a]", "[!x]", "{a,b}", "{", "}", "["]
)
GLOB = st.one_of(
    st.lists(GLOB_PIECE, max_size=40).map("".join),
    st.integers(10, 400).map(lambda n: "*" * n + "x"),
    st.integers(1, 10).map(lambda n: "{a,b}" * n),
)  # fmt: skip
MANIFEST = st.one_of(
    HOSTILE_JSON_TEXT,
    st.builds(
        lambda patterns, strategy, extra: json_text(
            {
                "version": "1",
                "strategy": strategy,
                "overrides": [{"pattern": p, "strategy": {"chunk_by": "h3"}} for p in patterns],
                **extra,
            }
        ),
        st.lists(GLOB, max_size=4),
        st.one_of(JSON_VALUE, st.just({"chunk_by": "h3"})),
        st.dictionaries(
            st.sampled_from(["metadata", "taxonomy", "mcpServerInstructions", "bogus"]), JSON_VALUE
        ),
    ),
)

# -- JSON-RPC ------------------------------------------------------------------------------------

METHOD = st.sampled_from(
    ["ping", "tools/list", "tools/call", "initialize", "notifications/initialized", "notifications/cancelled",
     "resources/list", "resources/read", "resources/templates/list", "prompts/list", "prompts/get",
     "no/such/method", "", "\ud800"]
)  # fmt: skip
REQUEST_ID = st.one_of(
    st.integers(-(2**70), 2**70), st.text(max_size=8), st.none(), st.booleans(), st.floats(allow_nan=False),
    st.just({"a": 1}), st.just([1]),
    # Lone surrogates in a string id: what every reply writer must still encode (issue 19).
    # (st.text never draws a surrogate, whatever its alphabet.)
    st.builds(lambda text, code: text + chr(code), st.text(max_size=3), st.integers(0xD800, 0xDFFF)),
)  # fmt: skip
TOOL_ARGUMENTS = st.one_of(
    JSON_VALUE,
    st.fixed_dictionaries(
        {"query": st.one_of(ODD_TEXT, st.just("\ud800"), LONG_RUN)},
        optional={"limit": JSON_VALUE, "language": JSON_VALUE, "cursor": JSON_VALUE, "bogus": JSON_VALUE},
    ),
    # Wrong shapes and huge counts in every argument of both tools (and a hub's `library`).
    st.fixed_dictionaries(
        {},
        optional={
            name: st.one_of(WRONG_SCALAR, st.just("retries"))
            for name in (
                "query",
                "limit",
                "cursor",
                "max_tokens",
                "chunk_id",
                "context",
                "library",
                "scope",
                "language",
            )
        },
    ),
)
TOOL = st.sampled_from(["search_docs", "get_doc", "nope"])
PARAMS = st.one_of(
    JSON_VALUE,
    st.fixed_dictionaries({"name": TOOL, "arguments": TOOL_ARGUMENTS}),
    # resources/read, prompts/get, a cursor of a list call: each field wrong-shaped or huge.
    st.fixed_dictionaries(
        {},
        optional={
            "uri": st.one_of(WRONG_SCALAR, st.sampled_from(["docs://chunk/x", "docs-mcp://x/" + "a" * 5000])),
            "name": st.one_of(WRONG_SCALAR, st.just("ask")),
            "arguments": st.one_of(
                WRONG_SCALAR, st.dictionaries(st.text(max_size=5), WRONG_SCALAR, max_size=3)
            ),
            "cursor": WRONG_SCALAR,
            "_meta": WRONG_SCALAR,
        },
    ),
)


def _message(parts: dict[str, Any], drop: list[str]) -> dict[str, Any]:
    return {key: value for key, value in parts.items() if key not in drop}


JSON_RPC_OBJECT = st.builds(
    _message,
    st.fixed_dictionaries(
        {"jsonrpc": st.one_of(st.just("2.0"), JSON_LEAF), "id": REQUEST_ID, "method": METHOD,
         "params": PARAMS},
        optional={"result": JSON_VALUE, "error": JSON_VALUE, "extra": JSON_VALUE},
    ),
    st.lists(st.sampled_from(["jsonrpc", "id", "method", "params"]), max_size=3),
)  # fmt: skip
JSON_RPC_LINE = st.one_of(
    JSON_RPC_OBJECT.map(json_text),
    JSON_RPC_OBJECT.map(lambda message: json_text([message])),  # a batch
    HOSTILE_JSON_TEXT,
    st.binary(max_size=60).map(lambda raw: raw.decode("latin-1")),
).map(lambda line: line.replace("\n", " ").replace("\r", " "))

# -- wrong shapes, huge counts, torn files (issue 33) ----------------------------------------------


def torn(whole: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    """``whole`` cut at a random byte (a writer killed mid-file, a full disk): possibly mid-character."""
    return st.builds(lambda data, cut: data[: int(len(data) * cut)], whole, st.floats(0, 1))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


_STRATEGY_SHAPE = st.fixed_dictionaries(
    {},
    optional={
        "chunk_by": st.one_of(st.sampled_from(["h1", "h3", "file"]), WRONG_SCALAR),
        "max_chunk_size": st.one_of(st.integers(100, 5000), WRONG_SCALAR),
        "min_chunk_size": st.one_of(st.integers(0, 500), WRONG_SCALAR),
        "allow_block_splits": WRONG_SCALAR,
    },
)
MANIFEST_SHAPES = st.fixed_dictionaries(
    {"version": st.one_of(st.just("1"), WRONG_SCALAR)},
    optional={
        "strategy": st.one_of(_STRATEGY_SHAPE, WRONG_SCALAR),
        "overrides": st.one_of(
            WRONG_SCALAR,
            st.lists(
                st.fixed_dictionaries(
                    {"pattern": st.one_of(st.just("*.md"), WRONG_SCALAR)},
                    optional={"strategy": st.one_of(_STRATEGY_SHAPE, WRONG_SCALAR), "metadata": WRONG_SCALAR},
                ),
                max_size=3,
            ),
        ),
        "metadata": st.one_of(WRONG_SCALAR, st.dictionaries(st.sampled_from(["scope", "x"]), WRONG_SCALAR)),
        "taxonomy": st.one_of(WRONG_SCALAR, st.dictionaries(st.just("scope"), WRONG_SCALAR)),
        "mcpServerInstructions": WRONG_SCALAR,
        "libraryVersion": WRONG_SCALAR,
        "name": WRONG_SCALAR,
        "embedding": st.one_of(
            WRONG_SCALAR,
            st.fixed_dictionaries(
                {},
                optional={
                    k: WRONG_SCALAR
                    for k in ("provider", "model", "dimensions", "batch_size", "concurrency", "base_url")
                },
            ),
        ),
        "site": st.one_of(WRONG_SCALAR, st.fixed_dictionaries({}, optional={"url": WRONG_SCALAR})),
    },
).map(json_text)
# A manifest as bytes: a shape above, or any hostile one, whole or torn.
MANIFEST_BYTES = st.one_of(
    MANIFEST_SHAPES.map(_utf8), torn(MANIFEST_SHAPES.map(_utf8)), torn(MANIFEST.map(_utf8))
)

_YAML_SHAPE = st.sampled_from([
    "[a, b]", "{a: 1}", "true", "null", "99999999999999999999999999", "1e999", "-.inf", "[[[]]]",
    "{max_chunk_size: 99999999999999999999}", "{chunk_by: [h2]}", "{max_chunk_size: [1]}",
    "{max_chunk_size: 1e999}", "{max_chunk_size: .nan}", "{chunk_by: h3, max_chunk_size: true}",
    "{a: {b: [1, {c: d}]}}", "{scope: [guide]}", "{scope: {a: b}}", "2024-01-01",
])  # fmt: skip
FRONT_MATTER_SHAPES = st.lists(
    st.builds(lambda key, value: f"{key}: {value}", YAML_KEY, st.one_of(_YAML_SHAPE, YAML_VALUE)),
    min_size=1,
    max_size=5,
).map("\n".join)
# A page whose front matter is wrong-shaped or cut off mid-way (no closing ---, a torn key).
PAGE_BYTES = st.one_of(
    st.builds(lambda front, body: _utf8(f"---\n{front}\n---\n{body}"), FRONT_MATTER_SHAPES, MARKDOWN),
    torn(st.builds(lambda front: _utf8(f"---\n{front}\n---\n# Title\n\nBody.\n"), FRONT_MATTER_SHAPES)),
    torn(MARKDOWN.map(_utf8)),
    # Huge counts of one thing: headings, front matter keys.
    st.integers(1_000, 30_000).map(lambda n: b"# a\n" * n),
    st.integers(1_000, 20_000).map(
        lambda n: b"---\n" + b"".join(b"k%d: v\n" % i for i in range(n)) + b"---\n"
    ),
)
