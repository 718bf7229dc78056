"""Front matter and ``<!-- mcp_... -->`` comment hints: their effect on chunks, and every finding rule."""

from __future__ import annotations

from docs_mcp.chunk.chunking import ChunkedFile, MetadataDeclaration, chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.strategy import ChunkBy, Strategy


def chunked(source: str, chunk_by: ChunkBy = "h2", metadata: dict[str, str] | None = None) -> ChunkedFile:
    settings = FileSettings(
        strategy=Strategy(chunk_by=chunk_by), metadata=metadata or {}, strategy_explicit=False
    )
    return chunk_file(source, "doc.md", settings)


def rules(result: ChunkedFile) -> list[tuple[int, str, str]]:
    return [(finding.line, finding.severity, finding.rule) for finding in result.findings]


NESTED = "# A\n\na\n\n## B\n\nb\n\n### C\n\nc\n"


# -- file-level strategy ----------------------------------------------------------------------------


def test_an_inline_chunking_hint_overrides_the_manifest_strategy() -> None:
    result = chunked('<!-- mcp_chunking_hint: {"chunk_by": "h3", "max_chunk_size": 8000} -->\n\n' + NESTED)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a", "doc.md#a/b", "doc.md#a/b/c"]
    assert result.strategy == Strategy(chunk_by="h3", max_chunk_size=8000)
    assert result.strategy_explicit
    assert result.findings == []


def test_a_hint_anywhere_outside_code_applies_to_the_whole_file() -> None:
    result = chunked(NESTED + '\ntext <!-- mcp_chunking_hint: {"chunk_by": "h1"} -->\n')
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a"]


def test_without_hints_the_manifest_strategy_and_its_explicitness_are_kept() -> None:
    result = chunked(NESTED)
    assert result.strategy == Strategy()
    assert not result.strategy_explicit


def test_front_matter_wins_over_the_inline_hint() -> None:
    source = '---\nmcp_chunking_hint: h1\n---\n<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n' + NESTED
    result = chunked(source)
    assert result.strategy.chunk_by == "h1"
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a"]


def test_front_matter_mcp_strategy_replaces_the_whole_strategy() -> None:
    source = "---\nmcp_strategy:\n  chunk_by: file\n  min_chunk_size: 10\n---\n" + NESTED
    result = chunk_file(source, "doc.md", FileSettings(strategy=Strategy(max_chunk_size=500)))
    assert result.strategy == Strategy(chunk_by="file", min_chunk_size=10)
    assert [chunk.id for chunk in result.chunks] == ["doc.md"]
    assert result.strategy_explicit


def test_two_file_hints_are_a_duplicate_hint_error_and_the_first_wins() -> None:
    source = (
        '<!-- mcp_chunking_hint: {"chunk_by": "h1"} -->\n\n<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n'
    )
    result = chunked(source + NESTED)
    assert rules(result) == [(3, "error", "duplicate-hint")]
    assert result.strategy.chunk_by == "h1"


# -- section hints ------------------------------------------------------------------------------------


def test_a_section_hint_refines_its_section_only() -> None:
    source = (
        '## A\n\na\n\n### A1\n\nx\n\n<!-- mcp_section_hint: {"chunk_by": "h3"} -->\n'
        "## B\n\nb\n\n### B1\n\ny\n"
    )
    result = chunked(source)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a", "doc.md#b", "doc.md#b/b1"]
    assert result.findings == []


def test_a_section_hint_at_or_above_its_heading_level_keeps_the_section_whole() -> None:
    source = '<!-- mcp_section_hint: {"chunk_by": "file"} -->\n# A\n\na\n\n## B\n\nb\n\n# C\n\n## D\n\nd\n'
    result = chunked(source)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a", "doc.md#c/d"]
    assert result.findings == []


def test_hint_comments_before_a_heading_belong_to_that_headings_chunk() -> None:
    source = '## A\n\na\n\n<!-- mcp_metadata: {"stability": "beta"} -->\n## B\n\nb\n'
    result = chunked(source)
    assert result.chunks[0].markdown == "## A\n\na"
    assert result.chunks[1].start_line == 5


def test_a_section_hint_on_a_heading_that_starts_no_chunk_is_dangling() -> None:
    result = chunked('## A\n\na\n\n<!-- mcp_section_hint: {"chunk_by": "h4"} -->\n### Deep\n\nx\n')
    [finding] = result.findings
    assert (finding.line, finding.rule) == (5, "dangling-hint")
    assert "heading level 3 does not start a chunk under strategy h2" in finding.message


def test_a_section_hint_not_directly_before_a_heading_is_dangling() -> None:
    result = chunked('## A\n\n<!-- mcp_section_hint: {"chunk_by": "h3"} -->\n\ntext\n\n## B\n\nb\n')
    assert rules(result) == [(3, "error", "dangling-hint")]


def test_a_section_hint_inside_a_list_is_dangling() -> None:
    result = chunked('## A\n\n- item\n\n  <!-- mcp_section_hint: {"chunk_by": "h3"} -->\n## B\n\nb\n')
    assert rules(result) == [(5, "error", "dangling-hint")]


# -- metadata --------------------------------------------------------------------------------------------


def test_metadata_merges_settings_then_front_matter_then_mcp_metadata_then_section_comments() -> None:
    source = (
        "---\nmetadata:\n  language: go\n  scope: sdk-specific\nmcp_metadata:\n  scope: global-guide\n---\n"
        "## A\n\na\n\n"
        '<!-- mcp_metadata: {"stability": "beta"} -->\n'
        "## B\n\nb\n\n### B1\n\nc\n\n## C\n\nd\n"
    )
    result = chunked(source, "h3", metadata={"language": "python", "product": "sdk"})
    base = {"language": "go", "scope": "global-guide", "product": "sdk"}
    assert [dict(chunk.metadata) for chunk in result.chunks] == [
        base,
        {**base, "stability": "beta"},
        {**base, "stability": "beta"},
        base,
    ]
    assert result.metadata_declarations == [
        MetadataDeclaration(3, "language", "go", "frontmatter"),
        MetadataDeclaration(4, "scope", "sdk-specific", "frontmatter"),
        MetadataDeclaration(6, "scope", "global-guide", "frontmatter"),
        MetadataDeclaration(12, "stability", "beta", "comment"),
    ]


def test_section_metadata_on_an_empty_parent_reaches_its_children() -> None:
    source = '<!-- mcp_metadata: {"tier": "pro"} -->\n# Pro\n\n## Feature\n\nx\n'
    result = chunked(source)
    assert [(chunk.id, dict(chunk.metadata)) for chunk in result.chunks] == [
        ("doc.md#pro/feature", {"tier": "pro"})
    ]


def test_metadata_not_before_a_chunk_heading_is_orphaned() -> None:
    result = chunked(
        '## A\n\n<!-- mcp_metadata: {"x": "y"} -->\n\ntext\n\n<!-- mcp_metadata: {"x": "z"} -->\n### D\n'
    )
    assert rules(result) == [(3, "error", "orphaned-metadata"), (7, "error", "orphaned-metadata")]
    assert all(dict(chunk.metadata) == {} for chunk in result.chunks)


def test_non_string_metadata_is_reported_and_skipped_but_declared() -> None:
    source = (
        '---\nmetadata:\n  version: 2\n  lang: go\n---\n<!-- mcp_metadata: {"beta": true} -->\n## A\n\na\n'
    )
    result = chunked(source)
    assert rules(result) == [(3, "error", "invalid-metadata"), (6, "error", "invalid-metadata")]
    assert dict(result.chunks[0].metadata) == {"lang": "go"}
    assert MetadataDeclaration(3, "version", 2, "frontmatter") in result.metadata_declarations
    assert MetadataDeclaration(6, "beta", True, "comment") in result.metadata_declarations


def test_two_metadata_comments_for_one_heading_are_a_duplicate() -> None:
    result = chunked('<!-- mcp_metadata: {"a": "1"} -->\n<!-- mcp_metadata: {"b": "2"} -->\n## A\n\nx\n')
    assert rules(result) == [(2, "error", "duplicate-hint")]


# -- malformed hints ---------------------------------------------------------------------------------


def test_a_hint_without_a_json_object_is_invalid_hint_json() -> None:
    source = (
        "<!-- mcp_chunking_hint: {chunk_by: h3} -->\n"
        "<!-- mcp_metadata: [1] -->\n"
        "<!-- mcp_metadata -->\n## A\n"
    )
    assert rules(chunked(source)) == [
        (1, "error", "invalid-hint-json"),
        (2, "error", "invalid-hint-json"),
        (3, "error", "invalid-hint-json"),
    ]


def test_unknown_keys_and_bad_values_in_a_chunking_hint_are_invalid_hint() -> None:
    source = (
        '<!-- mcp_chunking_hint: {"chunk_by": "h3", "split": true} -->\n\n'
        '<!-- mcp_section_hint: {"chunk_by": "h9"} -->\n## A\n\n'
        '<!-- mcp_section_hint: {"max_chunk_size": -5} -->\n## B\n\n'
        '<!-- mcp_section_hint: {"allow_block_splits": "yes"} -->\n## C\n'
    )
    result = chunked(source)
    assert rules(result) == [
        (1, "error", "invalid-hint"),
        (3, "error", "invalid-hint"),
        (6, "error", "invalid-hint"),
        (9, "error", "invalid-hint"),
    ]
    assert result.strategy.chunk_by == "h2"
    assert "allow_block_splits 'yes' is not true or false" in result.findings[-1].message


def test_a_file_hint_and_front_matter_can_allow_block_splits() -> None:
    hinted = chunked('<!-- mcp_chunking_hint: {"allow_block_splits": true} -->\n## A\n')
    assert hinted.strategy.allow_block_splits and hinted.findings == []
    front = chunked("---\nmcp_strategy: {chunk_by: h3, allow_block_splits: true}\n---\n## A\n")
    assert front.strategy == Strategy(chunk_by="h3", allow_block_splits=True)


def test_an_unknown_mcp_keyword_is_an_unknown_hint() -> None:
    [finding] = chunked('<!-- mcp_chunk_hint: {"chunk_by": "h3"} -->\n## A\n').findings
    assert finding.rule == "unknown-hint"
    assert "unknown hint keyword mcp_chunk_hint; expected mcp_chunking_hint" in finding.message


def test_ordinary_comments_are_not_hints() -> None:
    assert chunked("<!-- Start SDK Example [usage] -->\n## A\n\n<!-- TODO: mcp later -->\n").findings == []


def test_a_hint_inside_code_is_a_warning_and_does_nothing() -> None:
    source = (
        '## A\n\n```md\n<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n```\n\n'
        "    <!-- mcp_metadata: {} -->\n\n### B\n"
    )
    result = chunked(source)
    assert rules(result) == [(4, "warning", "hint-in-code"), (7, "warning", "hint-in-code")]
    assert result.strategy.chunk_by == "h2"
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a"]


# -- front matter ----------------------------------------------------------------------------------


def test_front_matter_lines_are_in_no_chunk_and_line_numbers_stay_the_files() -> None:
    result = chunked("---\ntitle: Guide\ndescription: x\n---\n\nintro\n\n## A\n\na\n")
    assert result.title == "Guide"
    assert [(c.id, c.start_line, c.end_line) for c in result.chunks] == [
        ("doc.md#_preamble", 6, 6),
        ("doc.md#a", 8, 10),
    ]
    assert all(chunk.title == "Guide" for chunk in result.chunks)


def test_malformed_front_matter_is_an_error_at_the_yaml_line() -> None:
    result = chunked("---\ntitle: ok\n  bad: x\n---\n## A\n\ntext\n")
    [finding] = result.findings
    assert (finding.line, finding.rule) == (3, "invalid-frontmatter")
    assert "not valid YAML" in finding.message
    assert result.title == ""  # nothing of the broken front matter is used
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a"]


def test_front_matter_that_is_not_a_mapping_is_invalid() -> None:
    assert rules(chunked("---\n- a\n- b\n---\n## A\n")) == [(1, "error", "invalid-frontmatter")]


def test_bad_front_matter_values_are_reported() -> None:
    source = "---\ntitle: [1]\nmcp_chunking_hint: h9\nmetadata: nope\n---\n## A\n"
    assert rules(chunked(source)) == [
        (2, "error", "invalid-frontmatter"),
        (3, "error", "invalid-hint"),
        (4, "error", "invalid-frontmatter"),
    ]


def test_a_section_hint_can_lower_max_chunk_size_for_its_section_only() -> None:
    body = "word " * 40
    source = (
        f"## A\n\n{body}\n\n### A1\n\n{body}\n\n"
        '<!-- mcp_section_hint: {"max_chunk_size": 300} -->\n'
        f"## B\n\n{body}\n\n### B1\n\n{body}\n"
    )
    result = chunked(source)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a", "doc.md#b", "doc.md#b/b1"]
    assert result.findings == []


def test_a_hint_keyword_without_a_colon_is_invalid_hint_json() -> None:
    [finding] = chunked('<!-- mcp_chunking_hint {"chunk_by": "h3"} -->\n## A\n').findings
    assert finding.rule == "invalid-hint-json"
    assert 'expected "mcp_chunking_hint: {...}"' in finding.message


def test_a_numeric_front_matter_title_is_used_as_text() -> None:
    assert chunked("---\ntitle: 2024\n---\n## A\n").title == "2024"


def test_multi_line_hint_comments_are_read() -> None:
    source = '<!--\n  mcp_metadata: {"stability": "beta"}\n-->\n## A\n\ntext\n'
    assert dict(chunked(source).chunks[0].metadata) == {"stability": "beta"}


def test_a_max_chunk_size_under_the_floor_is_invalid_hint_naming_the_limit() -> None:
    """Issue 19: ``max_chunk_size: 1`` gave one chunk per character (and fix ran for minutes)."""
    result = chunked('<!-- mcp_chunking_hint: {"chunk_by": "h2", "max_chunk_size": 99} -->\n\n# A\n\ntext\n')
    assert rules(result) == [(1, "error", "invalid-hint")]
    assert "max_chunk_size 99 is under the floor of 100 (MIN_MAX_CHUNK_SIZE)" in result.findings[0].message
    assert result.strategy.max_chunk_size == Strategy().max_chunk_size
