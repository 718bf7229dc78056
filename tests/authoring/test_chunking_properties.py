"""Properties of chunking on generated markdown: no line lost or duplicated, ids unique, deterministic."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.authoring.chunking import ChunkedFile, chunk_file
from docs_mcp.authoring.markdown import normalise, parse
from docs_mcp.authoring.model import CHUNK_BY_VALUES, FileSettings, Strategy

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
BLOCK = st.one_of(HEADING, HEADING, SETEXT, PARAGRAPH, FENCE, TABLE, LIST, COMMENT, REFERENCE)
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
    max_chunk_size=st.sampled_from([20_000, 300, 80, 1]),
    min_chunk_size=st.sampled_from([None, 20]),
)


def check_invariants(source: str, strategy: Strategy) -> ChunkedFile:
    result = chunk_file(source, "dir/a file.md", FileSettings(strategy=strategy))
    lines = normalise(source).split("\n")
    owner: dict[int, str] = {}
    for chunk in result.chunks:
        assert chunk.start_line <= chunk.end_line
        assert chunk.markdown == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert lines[chunk.start_line - 1].strip() and lines[chunk.end_line - 1].strip()
        for number in range(chunk.start_line, chunk.end_line + 1):
            assert number not in owner, f"line {number} in {owner.get(number)} and {chunk.id}"
            owner[number] = chunk.id
    first_body_line = parse(source).body_start  # the line after the front matter, if any
    for number, line in enumerate(lines, start=1):
        if number >= first_body_line and line.strip():
            assert number in owner, f"line {number} {line!r} is in no chunk"
    chunk_ids = [chunk.id for chunk in result.chunks]
    assert len(chunk_ids) == len(set(chunk_ids))
    assert [chunk.ordinal for chunk in result.chunks] == list(range(len(result.chunks)))
    assert [chunk.start_line for chunk in result.chunks] == sorted(
        chunk.start_line for chunk in result.chunks
    )
    oversized = {finding.line for finding in result.findings if finding.rule == "oversized-chunk"}
    for chunk in result.chunks:
        assert len(chunk.markdown) <= result.strategy.max_chunk_size or chunk.start_line in oversized
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
