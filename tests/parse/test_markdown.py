"""Parsing to top-level blocks: kinds, source line ranges, plain text, comments and hints in code."""

from __future__ import annotations

from docs_mcp.parse.markdown import Comment, normalise, parse


def test_blocks_carry_kind_level_and_one_based_inclusive_lines() -> None:
    doc = parse("# Title\n\npara one\npara two\n\n```py\n# code\n```\n\n- a\n- b\n")
    assert [(b.kind, b.level, b.start_line, b.end_line) for b in doc.blocks] == [
        ("heading", 1, 1, 1),
        ("paragraph", 0, 3, 4),
        ("fence", 0, 6, 8),
        ("bullet_list", 0, 10, 11),
    ]


def test_plain_text_drops_markdown_syntax_but_keeps_words_code_and_cells() -> None:
    doc = parse(
        "Some **bold** `code` [link](http://x) ![alt](i.png) ~~old~~ &amp;\n\n"
        "| h1 | h2 |\n|--|--|\n| c | d |\n"
    )
    assert doc.blocks[0].text == "Some bold code link alt old &"
    assert doc.blocks[1].text == "h1\th2\nc\td"


def test_front_matter_is_not_a_block_and_the_body_starts_after_it() -> None:
    doc = parse("---\ntitle: x\n---\n# H\n")
    assert doc.front_matter is not None
    assert (doc.front_matter.text, doc.front_matter.start_line, doc.front_matter.end_line) == (
        "title: x",
        1,
        3,
    )
    assert doc.body_start == 4
    assert [b.start_line for b in doc.blocks] == [4]


def test_an_unclosed_front_matter_fence_is_ordinary_markdown() -> None:
    doc = parse("---\ntitle: x\n\n# H\n")
    assert doc.front_matter is None
    assert doc.body_start == 1


def test_comments_know_their_line_and_whether_they_stand_alone() -> None:
    doc = parse("<!-- a -->\n\ntext <!-- b -->\nmore <!-- c -->\n\n- item\n\n  <!-- d -->\n")
    comments = [comment for block in doc.blocks for comment in block.comments]
    assert comments == [
        Comment(1, " a ", True),
        Comment(3, " b ", False),
        Comment(4, " c ", False),
        Comment(8, " d ", False),
    ]
    assert doc.blocks[0].is_comment_only


def test_hint_comments_inside_code_are_located_by_line() -> None:
    doc = parse("```\nx\n<!-- mcp_metadata: {} -->\n```\n\n    <!--mcp_x-->\n")
    assert doc.hints_in_code == [3, 6]


def test_normalise_removes_a_bom_and_keeps_the_line_count() -> None:
    assert normalise("\ufeffa\r\nb\rc\n") == "a\nb\nc\n"
