"""The fast GFM table rule accepts exactly the tables markdown-it's own rule accepts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from docs_mcp.parse.md_table import ROWS_META_KEY, TableRow, split_row, table_rule

pytestmark = pytest.mark.timeout(120)


def stock() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table"])


def fast() -> MarkdownIt:
    md = MarkdownIt("commonmark").enable(["table"])
    md.block.ruler.at("table", table_rule, {"alt": ["paragraph", "reference"]})
    return md


def stock_outline(source: str) -> list[tuple[object, ...]]:
    """Block tokens outside tables, plus each table's line range and cells, from markdown-it's rule."""
    outline: list[tuple[object, ...]] = []
    rows: list[tuple[int, tuple[str, ...]]] = []
    cells: list[str] = []
    table: list[object] | None = None
    for token in stock().parse(source):
        if token.type == "table_open":
            table, rows = [token.map, token.level], []
        elif token.type == "tr_open":
            assert token.map is not None
            cells = []
            row_line = token.map[0]
        elif token.type == "inline" and table is not None:
            cells.append(token.content)
        elif token.type == "tr_close":
            rows.append((row_line, tuple(cells)))
        elif token.type == "table_close":
            assert table is not None
            outline.append(("table", *table, rows))
            table = None
        elif table is None:
            outline.append((token.type, token.map, token.level, token.content))
    return outline


def fast_outline(source: str) -> list[tuple[object, ...]]:
    outline: list[tuple[object, ...]] = []
    for token in fast().parse(source):
        if token.type == "table_open":
            rows: list[TableRow] = token.meta[ROWS_META_KEY]
            outline.append(("table", token.map, token.level, [(row.line, row.cells) for row in rows]))
        elif token.type != "table_close":
            outline.append((token.type, token.map, token.level, token.content))
    return outline


@pytest.mark.parametrize(
    "source",
    [
        "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n| 4 | 5 | 6 |\n",
        "a | b\n--|--\nc | d\n\nafter\n",
        "| a \\| b | c |\n|---|---|\n| x \\\\| y | z |\n",
        "para\n| a | b |\n|---|---|\n| 1 | 2 |\n",
        "- item\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |\n- next\n",
        "> | a |\n> |---|\n> | 1 |\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n# heading ends it\n| 3 | 4 |\n",
        "| a | b |\n|---|---|\n| 1 | 2 |\n```\ncode\n```\n",
        "| a |\n| - |\n",
        "| a | b |\n|---|\n| 1 | 2 |\n",
        "| a |\n|---||---|\n",
        "    | a | b |\n    |---|---|\n",
        "| a | b |\n- --|---\n",
        "no pipe\n|---|---|\n",
    ],
)
def test_tables_and_the_blocks_around_them_match_markdown_it(source: str) -> None:
    assert fast_outline(source) == stock_outline(source)


LINES = st.sampled_from(
    [
        "| a | b |",
        "a | b",
        "|---|---|",
        "|:--|--:|",
        "--|--",
        "| - |",
        "| x \\| y | z |",
        "| 1 |",
        "| 1 | 2 | 3 |",
        "|",
        "||",
        "",
        "text",
        "- item",
        "> quote",
        "# heading",
        "```",
        "    | indented | code |",
        "  | a | b |",
        "<div>",
        "***",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=14))
def test_generated_documents_have_the_same_tables_as_markdown_it(lines: list[str]) -> None:
    source = "\n".join(lines) + "\n"
    assert fast_outline(source) == stock_outline(source)


@pytest.mark.parametrize("row", ["a|b", "\\|x|y", "a\\\\|b", "|a|\\|", "", "x\\", "a\\|b\\|c|d"])
def test_split_row_is_markdown_its_escaped_split(row: str) -> None:
    import importlib

    reference = importlib.import_module("markdown_it.rules_block.table").escapedSplit
    assert split_row(row) == reference(row)
