"""Properties of chunking on generated markdown: every character owned once, no chunk over the limit,
ids unique, deterministic (the rule: ``tests/chunk_ownership.py``)."""

from __future__ import annotations

from chunk_ownership import assert_ownership
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.chunk.chunking import ChunkedFile, chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.markdown import normalise, parse
from docs_mcp.parse.strategy import CHUNK_BY_VALUES, Strategy

WORDS = st.sampled_from(
    ["Intro", "Usage", "Examples", "快速开始", "Café", "", "!!", "API Keys", "examples 2"]
)

HEADING = st.builds(lambda level, text: "#" * level + " " + text, st.integers(1, 6), WORDS)
SETEXT = st.builds(lambda text, mark: f"{text or 'x'}\n{mark * 3}", WORDS, st.sampled_from("=-"))
PARAGRAPH = st.builds(lambda words: " ".join(words), st.lists(WORDS, min_size=1, max_size=8)).map(
    lambda text: text or "text"
)
FENCE = st.builds(
    lambda body: "```\n" + "\n".join(body) + "\n```", st.lists(st.sampled_from(["# no", "## no", "x"]))
)
TABLE = st.just("| a | b |\n|---|---|\n| 1 | 2 |")
LIST = st.just("- one\n- two\n\n  # nested heading in list")
COMMENT = st.sampled_from(
    [
        "<!-- plain comment -->",
        '<!-- mcp_metadata: {"stability": "beta"} -->',
        '<!-- mcp_section_hint: {"chunk_by": "h4"} -->',
        '<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->',
        "<!-- mcp_bogus: {} -->",
        "<!-- mcp_metadata: {not json} -->",
    ]
)
REFERENCE = st.just("[ref]: https://example.com")
# Blocks big enough to be cut inside under the small limits below.
SENTENCE = st.builds(
    lambda words, end: " ".join(words) + end,
    st.lists(st.sampled_from(["alpha", "Beta", "έ", "👍🏽", "x" * 30, "go."]), min_size=1, max_size=12),
    st.sampled_from([".", "!", "?", "。", ""]),
)
LONG_PARAGRAPH = st.builds(
    lambda sentences, breaks: ("\n" if breaks else " ").join(sentences),
    st.lists(SENTENCE, min_size=1, max_size=15),
    st.booleans(),
)
ITEM = st.builds(lambda text, marker: f"{marker} {text}", SENTENCE, st.sampled_from(["-", "*", "1.", "2)"]))
NESTED_LIST = st.builds(
    lambda parent, children: parent + "\n" + "\n".join("  " + child for child in children),
    ITEM,
    st.lists(st.sampled_from(["- child one", "- child two is longer", "- 子项"]), min_size=1, max_size=12),
)
BIG_LIST = st.builds(
    lambda items: "\n".join(items), st.lists(st.one_of(ITEM, NESTED_LIST), min_size=1, max_size=12)
)
BIG_TABLE = st.builds(
    lambda rows: "| name | type |\n| --- | --- |\n" + "\n".join(f"| {a} | {b} |" for a, b in rows),
    st.lists(st.tuples(st.sampled_from(["id", "créé", "x" * 40]), SENTENCE), min_size=1, max_size=20),
)
BIG_FENCE = st.builds(
    lambda info, body: f"~~~~{info}\n" + "\n".join(body) + "\n~~~~",
    st.sampled_from(["", "python", "ts title=a.ts"]),
    st.lists(st.sampled_from(["x = 1", "", "    return call(a, b, c)", "y" * 90]), min_size=1, max_size=25),
)
QUOTE = st.builds(
    lambda parts: "\n>\n".join("> " + part for part in parts), st.lists(SENTENCE, min_size=1, max_size=8)
)
BLOCK = st.one_of(
    HEADING,
    HEADING,
    SETEXT,
    PARAGRAPH,
    FENCE,
    TABLE,
    LIST,
    COMMENT,
    REFERENCE,
    LONG_PARAGRAPH,
    BIG_LIST,
    BIG_TABLE,
    BIG_FENCE,
    QUOTE,
)
FRONT = st.sampled_from(["", "---\ntitle: T\n---\n", "---\nbad: [\n---\n", "---\nmetadata:\n  a: 1\n---\n"])


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(BLOCK, max_size=25))
    separators = draw(
        st.lists(st.sampled_from(["\n\n", "\n", "\n\n\n  \n"]), min_size=len(blocks), max_size=len(blocks))
    )
    body = "".join(block + sep for block, sep in zip(blocks, separators, strict=True))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    return bom + (draw(FRONT) + body).replace("\n", newline)


STRATEGIES = st.builds(
    Strategy,
    chunk_by=st.sampled_from(CHUNK_BY_VALUES),
    max_chunk_size=st.sampled_from([20_000, 300, 120, 80, 7, 1]),
    min_chunk_size=st.sampled_from([None, 20]),
)


def check_invariants(source: str, strategy: Strategy) -> ChunkedFile:
    result = chunk_file(source, "dir/a file.md", FileSettings(strategy=strategy))
    assert_ownership(source, result)
    lines = normalise(source).split("\n")
    for chunk in result.chunks:
        assert chunk.start_line <= chunk.end_line
        assert lines[chunk.start_line - 1].strip() and lines[chunk.end_line - 1].strip()
    assert [chunk.start_line for chunk in result.chunks] == sorted(
        chunk.start_line for chunk in result.chunks
    )
    assert parse(source).body_start >= 1
    # Size is never an error: a block too big is cut, with one warning for the file.
    rules = [finding.rule for finding in result.findings]
    assert "oversized-chunk" not in rules and rules.count("split-inside-block") <= 1
    return result


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents(), STRATEGIES)
def test_every_line_is_in_exactly_one_chunk_and_ids_are_unique(source: str, strategy: Strategy) -> None:
    check_invariants(source, strategy)


@settings(max_examples=100, deadline=None)
@given(documents(), STRATEGIES)
def test_chunking_is_deterministic(source: str, strategy: Strategy) -> None:
    settings_ = FileSettings(strategy=strategy)
    assert chunk_file(source, "a.md", settings_) == chunk_file(source, "a.md", settings_)


@settings(max_examples=200, deadline=None)
@given(st.text(), STRATEGIES)
def test_arbitrary_text_never_raises_and_keeps_the_invariants(source: str, strategy: Strategy) -> None:
    check_invariants(source, strategy)
