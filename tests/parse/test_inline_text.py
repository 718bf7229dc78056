"""Plain text of raw inline markdown: the words markdown-it's inline parser would give, without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from docs_mcp.parse.inline_text import inline_comments, inline_plain_text
from docs_mcp.parse.markdown import _inline_text, parse, plain_text

pytestmark = pytest.mark.timeout(60)

_REFERENCE = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def markdown_it_text(source: str, references: dict[str, object] | None = None) -> str:
    """What markdown-it's full inline parse gives (the text docs-mcp indexed before)."""
    children: list[Token] = []
    _REFERENCE.inline.parse(source, _REFERENCE, {"references": references or {}}, children)
    return "\n".join(line.rstrip() for line in _inline_text(children).split("\n"))


def ours(source: str, references: dict[str, object] | None = None) -> str:
    return "\n".join(line.rstrip() for line in inline_plain_text(source, references or {}).split("\n"))


@pytest.mark.parametrize(
    "source",
    [
        "Some **bold** and *em* and ***both*** and __under__ and _one_",
        "`code **not bold**` and ``a ` tick`` and `` `x` ``",
        '[link text](https://x.y/z "title") and ![alt *text*](img.png) and [a [nested] b](u)',
        "[][operations.Options](../models/options.md) and [Union[A[B], C[D]]](../x.md)",
        "snake_case_name and ext_ and _meta and 5 * 3 and *footnote",
        "~~old~~ and ~single~ and escaped \\*star\\* and \\_under\\_ and a\\\\b",
        "&amp; &lt;tag&gt; &copy; &#35; &#x41; &unknown; &nbsp;x",
        "<b>bold</b> <span class='x'>y</span> <!-- c --> <metric name= A “q”> List<String>",
        "<https://example.com/a?b=c> and <me@example.com> and <notatag",
        "line one  \n   line two\\\nline three\n<response> { x } </response>",
        "scores[0]['rouge-l'] and [shortcut] and [text][undefined]",
        "**unclosed and `unclosed code and [unclosed link](",
    ],
)
def test_plain_text_matches_markdown_it_on_common_inline_syntax(source: str) -> None:
    assert ours(source) == markdown_it_text(source)


def test_reference_links_keep_their_text_only_when_the_reference_is_defined() -> None:
    references: dict[str, object] = {"REF": {"href": "https://x", "title": ""}}
    source = "[shown][ref] and [kept][missing] and [collapsed][]"
    assert ours(source, references) == markdown_it_text(source, references)
    assert ours(source, references) == "shown and [kept][missing] and [collapsed][]"


def test_comments_are_found_with_their_line_offset_but_not_inside_code_or_escapes() -> None:
    source = "a <!-- one -->\nb `<!-- in code -->` \\<!-- escaped -->\n<!--two\nlines--> <!-->"
    assert inline_comments(source) == [(0, " one "), (2, "two\nlines")]


def test_text_without_markdown_syntax_is_returned_as_is() -> None:
    assert inline_plain_text("plain words, nothing else.") == "plain words, nothing else."


def _reference_block_texts(source: str) -> list[str]:
    """Top-level block texts as the full markdown-it parse (inline included) gives them."""
    tokens = _REFERENCE_WITH_FRONT.parse(source.replace("\r\n", "\n"))
    texts: list[str] = []
    depth = 0
    parts: list[str] = []
    previous = ""
    for token in tokens:
        if token.type == "front_matter":
            continue
        if token.type == "inline":
            parts.append(_inline_text(token.children or []))
            parts.append("\t" if previous in ("th_open", "td_open") else "\n")
        elif token.type in ("fence", "code_block"):
            parts.append(token.content)
        elif token.type == "html_block":
            parts.append(plain_text([token]) + "\n")  # HTML blocks are not inline: same code both ways
        elif token.type == "tr_close" and parts and parts[-1] == "\t":
            parts[-1] = "\n"
        previous = token.type
        depth += token.nesting
        if depth == 0:
            texts.append("\n".join(line.rstrip() for line in "".join(parts).strip().split("\n")))
            parts = []
    return texts


_REFERENCE_WITH_FRONT = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(front_matter_plugin)


@pytest.mark.slow
def test_block_texts_equal_markdown_it_inline_output_on_the_real_corpora(evaldata_dir: Path) -> None:
    # All of claude-docs and every 8th SDK file (the whole SDK set is checked by hand, see the report).
    sdk = sorted((evaldata_dir / "corpora").rglob("*.md"))[::8]
    files = sorted((evaldata_dir / "claude-docs" / "corpus").rglob("*.md")) + sdk
    assert files
    for file in files:
        source = file.read_text(encoding="utf-8")
        assert [block.text for block in parse(source).blocks] == _reference_block_texts(source), file
