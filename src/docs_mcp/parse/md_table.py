"""A faster GFM table block rule for markdown-it-py, for docs-mcp's block-only parse.

markdown-it-py's own rule (``markdown_it/rules_block/table.py``) splits each row with a
character-by-character Python loop and pushes five tokens per cell. The generated SDK model pages
hold tables of up to ~95 KB, which made the rule a third of all chunking time. This rule accepts
exactly the same lines as a table (same header and delimiter checks, same terminators, same
autocompleted-cell limit), so block line ranges do not change, but it splits rows with a regular
expression and emits only ``table_open`` / ``table_close``: the cells travel in ``table_open.meta``
as :class:`TableRow` values (raw inline source, escaped pipes already unescaped, trimmed as
markdown-it trims them). Nothing downstream of docs-mcp renders these tokens.

Measured against markdown-it-py's rule in the same run
(``benchmarks/test_replacements.py::test_md_table_against_markdown_its_table_rule``, block parse of
the files with tables in a quarter of the SDK corpora; the speed-up is gated in
``benchmarks/thresholds.toml``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it.common.utils import MD_TRIM_CHARS
from markdown_it.rules_block.state_block import StateBlock

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"markdown-it-py": "4.3"}

ROWS_META_KEY = "rows"
# Same limit as markdown-it (see markdown-it/markdown-it#1000): bounds expansion of short rows.
MAX_AUTOCOMPLETED_CELLS = 0x10000

_DELIMITER_LINE = re.compile(r"[-:|][-:| \t]*")
_ALIGN_CELL = re.compile(r":?-+:?")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class TableRow:
    """One table row: its 0-based source line and its cells (header: as many as the delimiter row)."""

    line: int
    cells: tuple[str, ...]


def split_row(text: str) -> list[str]:
    """markdown-it's ``escapedSplit``: split at pipes not preceded by a backslash; ``\\|`` -> ``|``."""
    if "\\|" not in text:
        return text.split("|")
    return [part.replace("\\|", "|") for part in _UNESCAPED_PIPE.split(text)]


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _cells(text: str) -> list[str]:
    columns = split_row(text)
    if columns and columns[0] == "":
        columns.pop(0)
    if columns and columns[-1] == "":
        columns.pop()
    return columns


def _column_count(state: StateBlock, start: int) -> int:
    """The number of columns when lines ``start`` and ``start + 1`` open a table, else 0."""
    delimiter = _line(state, start + 1)
    if len(delimiter) < 2 or _DELIMITER_LINE.fullmatch(delimiter) is None:
        return 0
    if delimiter[0] == "-" and delimiter[1] in " \t":
        return 0  # a list item ("- ..."), not a delimiter row
    columns = delimiter.split("|")
    aligns = 0
    for index, column in enumerate(columns):
        trimmed = column.strip(MD_TRIM_CHARS)
        if not trimmed:
            # Empty columns are allowed before and after the table, not between columns.
            if index in (0, len(columns) - 1):
                continue
            return 0
        if _ALIGN_CELL.fullmatch(trimmed) is None:
            return 0
        aligns += 1
    header = _line(state, start).strip(MD_TRIM_CHARS)
    if "|" not in header or state.is_code_block(start):
        return 0
    count = len(_cells(header))
    return count if count == aligns else 0


def table_rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Block rule: a GFM table starting at line ``start`` (markdown-it's signature and semantics)."""
    if start + 2 > end:
        return False
    second = start + 1
    if state.sCount[second] < state.blkIndent or state.is_code_block(second):
        return False
    column_count = _column_count(state, start)
    if not column_count:
        return False
    if silent:
        return True
    header = _cells(_line(state, start).strip(MD_TRIM_CHARS))
    rows = [TableRow(start, tuple(cell.strip(MD_TRIM_CHARS) for cell in header))]
    old_parent = state.parentType
    state.parentType = "table"
    # Like markdown-it: the rules that may end a blockquote end a table too.
    terminators = state.md.block.ruler.getRules("blockquote")
    autocompleted = 0
    line = start + 2
    while line < end:
        if state.sCount[line] < state.blkIndent:
            break
        if any(rule(state, line, end, True) for rule in terminators):
            break
        text = _line(state, line).strip(MD_TRIM_CHARS)
        if not text or state.is_code_block(line):
            break
        columns = _cells(text)
        autocompleted += column_count - len(columns)
        if autocompleted > MAX_AUTOCOMPLETED_CELLS:
            break
        cells = [column.strip(MD_TRIM_CHARS) for column in columns[:column_count]]
        cells.extend([""] * (column_count - len(cells)))
        rows.append(TableRow(line, tuple(cells)))
        line += 1
    opening = state.push("table_open", "table", 1)
    opening.map = [start, line]
    opening.meta = {ROWS_META_KEY: rows}
    state.push("table_close", "table", -1)
    state.parentType = old_parent
    state.line = line
    return True
