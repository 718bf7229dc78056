"""Section structure: heading slug paths and breadcrumbs, and which headings start chunks."""

from __future__ import annotations

from docs_mcp.chunk.sections import HeadingInfo, Scope, find_boundaries, outline
from docs_mcp.parse.hints import FileHints, StrategyHint
from docs_mcp.parse.markdown import parse
from docs_mcp.parse.reporter import Reporter


def test_outline_nests_headings_by_level_and_numbers_duplicates_per_parent() -> None:
    doc = parse("# A\n## B\n## B\n### C\n# A\n## B\n")
    assert list(outline(doc.blocks).values()) == [
        HeadingInfo(("a",), ()),
        HeadingInfo(("a", "b"), ("A",)),
        HeadingInfo(("a", "b-2"), ("A",)),
        HeadingInfo(("a", "b-2", "c"), ("A", "B")),
        HeadingInfo(("a-2",), ()),
        HeadingInfo(("a-2", "b"), ("A",)),
    ]


def test_a_skipped_level_makes_the_nearest_shallower_heading_the_parent() -> None:
    doc = parse("# A\n### C\n## B\n")
    assert [info.slugs for info in outline(doc.blocks).values()] == [("a",), ("a", "c"), ("a", "b")]


def test_boundaries_follow_the_split_level_and_section_hints() -> None:
    doc = parse("# A\n## B\n### C\n## D\n### E\n#### F\n")
    file_scope = Scope(0, 2, 20_000, None)
    hints = FileHints(section_hints={3: (1, StrategyHint(chunk_by="h4", max_chunk_size=500))})
    report = Reporter("x.md")
    starts = find_boundaries(doc.blocks, file_scope, hints, report)
    assert sorted(starts) == [0, 1, 3, 4, 5]
    assert starts[0] is file_scope
    assert starts[4] == Scope(2, 4, 500, None)
    assert report.findings == []
