"""Chunking rules of issue 2 and the spec's Chunk Identity Scheme, one behaviour per test."""

from __future__ import annotations

from docs_mcp.chunk.chunking import ChunkedFile, chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.strategy import ChunkBy, Strategy


def chunked(
    source: str,
    chunk_by: ChunkBy = "h2",
    path: str = "doc.md",
    max_chunk_size: int = 20_000,
    min_chunk_size: int | None = None,
    metadata: dict[str, str] | None = None,
) -> ChunkedFile:
    strategy = Strategy(chunk_by=chunk_by, max_chunk_size=max_chunk_size, min_chunk_size=min_chunk_size)
    return chunk_file(source, path, FileSettings(strategy=strategy, metadata=metadata or {}))


def ids(source: str, chunk_by: ChunkBy = "h2", **kwargs: object) -> list[str]:
    return [chunk.id for chunk in chunked(source, chunk_by, **kwargs).chunks]  # type: ignore[arg-type]


# -- ids ------------------------------------------------------------------------------------------


def test_content_before_the_first_heading_is_the_preamble() -> None:
    assert ids("Intro.\n\n## Backoff Strategy\n\nText.\n", path="guides/retries.md") == [
        "guides/retries.md#_preamble",
        "guides/retries.md#backoff-strategy",
    ]


def test_whitespace_before_the_first_heading_forms_no_preamble() -> None:
    assert ids("\n\n   \n## A\n\ntext\n") == ["doc.md#a"]


def test_a_comment_alone_before_the_first_heading_forms_no_preamble_and_is_kept() -> None:
    result = chunked("<!-- generated, do not edit -->\n\n## A\n\ntext\n")
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a"]
    assert result.chunks[0].start_line == 1
    assert result.chunks[0].markdown.startswith("<!-- generated")


def test_a_nested_heading_id_joins_its_ancestor_slugs() -> None:
    source = "# Authentication\n\nIntro.\n\n## Get Token\n\nCall it.\n"
    assert ids(source, path="sdks/typescript/auth.md") == [
        "sdks/typescript/auth.md#authentication",
        "sdks/typescript/auth.md#authentication/get-token",
    ]


def test_a_shallower_heading_ends_the_section_before_it() -> None:
    source = "## One\n\nfirst\n\n# Part Two\n\nintro two\n\n## Three\n\nthird\n"
    result = chunked(source)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#one", "doc.md#part-two", "doc.md#part-two/three"]
    assert result.chunks[0].text == "first"
    assert "Part Two" not in result.chunks[0].markdown


def test_a_shallower_heading_without_content_forms_no_chunk_but_lives_in_ids_and_breadcrumbs() -> None:
    source = "# Authentication\n\n## Get Token\n\nCall it.\n\n## Refresh\n\nAgain.\n"
    result = chunked(source)
    assert [chunk.id for chunk in result.chunks] == [
        "doc.md#authentication/get-token",
        "doc.md#authentication/refresh",
    ]
    first = result.chunks[0]
    assert first.breadcrumb == ("Authentication",)
    assert first.start_line == 1  # the parent's heading line is not lost
    assert first.text == "Call it."


def test_empty_ancestors_at_several_levels_all_live_on_in_the_id() -> None:
    source = "# A\n\n## B\n\n### C\n\ntext\n"
    result = chunked(source, "h3")
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a/b/c"]
    assert result.chunks[0].breadcrumb == ("A", "B")


def test_a_heading_with_no_content_before_a_sibling_is_its_own_chunk() -> None:
    result = chunked("## Empty\n\n## Full\n\ntext\n")
    assert [chunk.id for chunk in result.chunks] == ["doc.md#empty", "doc.md#full"]
    assert result.chunks[0].heading == "Empty"
    assert result.chunks[0].text == ""


def test_duplicate_headings_get_numbered_suffixes_in_document_order() -> None:
    source = "## Examples\n\na\n\n## Examples\n\nb\n\n## Examples\n\nc\n"
    assert ids(source, path="guides/retries.md") == [
        "guides/retries.md#examples",
        "guides/retries.md#examples-2",
        "guides/retries.md#examples-3",
    ]


def test_duplicate_slugs_are_scoped_to_their_parent() -> None:
    source = "# Python\n\n## Install\n\np\n\n# Go\n\n## Install\n\ng\n"
    assert ids(source) == ["doc.md#python/install", "doc.md#go/install"]


def test_children_use_their_parents_deduplicated_slug() -> None:
    source = "# SDK\n\n## Usage\n\na\n\n# SDK\n\n## Usage\n\nb\n"
    assert ids(source) == ["doc.md#sdk/usage", "doc.md#sdk-2/usage"]


def test_a_heading_named_like_a_numbered_duplicate_gets_a_distinct_id() -> None:
    source = "## Examples\n\na\n\n## Examples\n\nb\n\n## Examples 2\n\nc\n"
    result_ids = ids(source)
    assert result_ids[:2] == ["doc.md#examples", "doc.md#examples-2"]
    assert len(set(result_ids)) == 3


def test_a_file_with_strategy_file_is_one_chunk_named_by_its_path() -> None:
    result = chunked("# Title\n\ntext\n\n## Section\n\nmore\n", "file", path="models/user.md")
    assert [chunk.id for chunk in result.chunks] == ["models/user.md"]
    assert result.chunks[0].level == 0
    assert result.chunks[0].heading == "Title"
    assert "Section" in result.chunks[0].text


def test_a_file_with_no_heading_at_the_split_level_is_one_chunk() -> None:
    assert ids("intro\n\n### Deep\n\ntext\n", "h2", path="a.md") == ["a.md"]


def test_a_blank_file_has_no_chunks() -> None:
    assert chunked("\n  \n\n").chunks == []
    assert chunked("").chunks == []


def test_strategy_h1_keeps_deeper_headings_inside_the_chunk() -> None:
    result = chunked("# A\n\n## B\n\nb\n\n# C\n\nc\n\nd\n", "h1")
    assert [chunk.id for chunk in result.chunks] == ["doc.md#a", "doc.md#c"]
    assert result.chunks[0].text == "B\n\nb"


def test_strategy_h3_splits_at_every_heading_down_to_level_three() -> None:
    source = "# A\n\na\n\n## B\n\nb\n\n### C\n\nc\n\n#### D\n\nd\n"
    assert ids(source, "h3") == ["doc.md#a", "doc.md#a/b", "doc.md#a/b/c"]


def test_strategies_h4_to_h6_work_too() -> None:
    source = "## A\n\na\n\n#### B\n\nb\n\n###### C\n\nc\n"
    assert ids(source, "h4") == ["doc.md#a", "doc.md#a/b"]
    assert ids(source, "h6") == ["doc.md#a", "doc.md#a/b", "doc.md#a/b/c"]


def test_hash_lines_inside_fenced_code_are_not_headings() -> None:
    source = "## Script\n\n```bash\n# install it\npip install x\n## not a heading\n```\n\n## Next\n\nn\n\nm\n"
    result = chunked(source)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#script", "doc.md#next"]
    assert "# install it" in result.chunks[0].text


def test_hash_lines_inside_indented_code_are_not_headings() -> None:
    source = "## A\n\nPara.\n\n    # comment\n    ## also code\n\n## B\n\nb\n\nc\n"
    assert ids(source) == ["doc.md#a", "doc.md#b"]


def test_setext_headings_are_headings() -> None:
    source = "Title\n=====\n\nintro\n\nSection\n-------\n\ntext\n"
    result = chunked(source)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#title", "doc.md#title/section"]
    assert result.chunks[1].start_line == 6
    assert result.chunks[1].markdown.startswith("Section\n-------")
    assert result.title == "Title"


def test_unicode_and_empty_headings_get_usable_ids() -> None:
    source = "## 快速开始\n\na\n\n## Café\n\nb\n\n##\n\nc\n\n## !!!\n\nd\n"
    assert ids(source) == ["doc.md#快速开始", "doc.md#cafe", "doc.md#section", "doc.md#section-2"]


def test_paths_with_spaces_are_kept_verbatim_in_ids() -> None:
    result = chunked("## Install Steps\n\nx\n", path="guides/getting started.md")
    assert result.chunks[0].id == "guides/getting started.md#install-steps"
    assert result.chunks[0].file_path == "guides/getting started.md"


# -- chunk fields -----------------------------------------------------------------------------------


def test_every_chunk_carries_heading_level_breadcrumb_ordinal_and_lines() -> None:
    source = "# Guide\n\nintro\n\n## Retries\n\nRetry **three** times, see [docs](https://x.y).\n"
    result = chunked(source, metadata={"language": "python"})
    intro, retries = result.chunks
    assert (intro.heading, intro.level, intro.breadcrumb, intro.ordinal) == ("Guide", 1, (), 0)
    assert (retries.heading, retries.level, retries.breadcrumb, retries.ordinal) == (
        "Retries",
        2,
        ("Guide",),
        1,
    )
    assert (retries.start_line, retries.end_line) == (5, 7)
    assert retries.markdown == "## Retries\n\nRetry **three** times, see [docs](https://x.y)."
    assert retries.text == "Retry three times, see docs."
    assert retries.metadata == {"language": "python"}
    assert retries.title == "Guide"
    assert retries.file_path == "doc.md"


def test_only_the_embedding_input_gets_the_breadcrumb_prefix() -> None:
    result = chunked("# Setup\n\n## Retries\n\nUse backoff.\n")
    chunk = result.chunks[0]
    assert chunk.embedding_input == "Setup > Retries\n\nUse backoff."
    assert chunk.text == "Use backoff."


def test_the_embedding_prefix_names_the_title_then_ancestors() -> None:
    source = "---\ntitle: SDK Guide\n---\n# Auth\n\n## Tokens\n\n### Refresh\n\nx\n"
    chunk = chunked(source, "h3").chunks[0]
    assert chunk.embedding_input == "SDK Guide > Auth > Tokens > Refresh\n\nx"


def test_table_cells_are_plain_text_and_deeper_headings_are_content() -> None:
    source = "## API\n\n### Fields\n\n| Name | Type |\n|------|------|\n| `id` | *string* |\n"
    chunk = chunked(source).chunks[0]
    assert chunk.text == "Fields\n\nName\tType\nid\tstring"


def test_text_has_no_html_tags_or_comments() -> None:
    chunk = chunked("## A\n\n<div class='x'>\n<b>bold</b>\n</div>\n\n<!-- note -->\n\ntext\n").chunks[0]
    assert chunk.text == "bold\n\ntext"


def test_title_is_the_first_h1_when_front_matter_has_none() -> None:
    assert chunked("intro\n\n## A\n\na\n\n# Real Title\n\nx\n").title == "Real Title"
    assert chunked("## A\n\na\n").title == ""


# -- line handling ----------------------------------------------------------------------------------


def test_crlf_and_cr_line_endings_keep_source_line_numbers() -> None:
    for newline in ("\r\n", "\r"):
        source = newline.join(["# T", "", "intro", "", "## A", "", "text", ""])
        result = chunked(source)
        assert [(c.id, c.start_line, c.end_line) for c in result.chunks] == [
            ("doc.md#t", 1, 3),
            ("doc.md#t/a", 5, 7),
        ]
        assert "\r" not in result.chunks[1].markdown


def test_a_leading_bom_is_ignored() -> None:
    result = chunked("\ufeff# Title\n\ntext\n")
    assert result.chunks[0].id == "doc.md#title"
    assert result.title == "Title"
    assert not result.chunks[0].markdown.startswith("\ufeff")


def test_a_bom_before_front_matter_still_finds_the_front_matter() -> None:
    result = chunked("\ufeff---\ntitle: T\n---\n## A\n\ntext\n")
    assert result.title == "T"
    assert result.chunks[0].start_line == 4


# -- sizes ------------------------------------------------------------------------------------------


def test_an_oversized_section_is_refined_at_the_next_deeper_heading_level() -> None:
    body = "word " * 30
    source = f"## Big\n\n{body}\n\n### One\n\n{body}\n\n### Two\n\n{body}\n\n## Small\n\nx\n\ny\n"
    result = chunked(source, max_chunk_size=200)
    assert [chunk.id for chunk in result.chunks] == [
        "doc.md#big",
        "doc.md#big/one",
        "doc.md#big/two",
        "doc.md#small",
    ]
    assert result.findings == []
    assert result.chunks[1].breadcrumb == ("Big",)


def test_a_refined_section_without_intro_forms_no_chunk_of_its_own() -> None:
    body = "word " * 30
    source = f"## Big\n\n### One\n\n{body}\n\n### Two\n\n{body}\n"
    assert ids(source, max_chunk_size=200) == ["doc.md#big/one", "doc.md#big/two"]


def test_a_huge_single_section_is_split_between_blocks_into_parts() -> None:
    paragraphs = "\n\n".join(f"Paragraph {n} " + "lorem ipsum " * 20 for n in range(40))
    source = f"## Huge\n\n{paragraphs}\n"
    result = chunked(source, max_chunk_size=1000)
    chunk_ids = [chunk.id for chunk in result.chunks]
    assert chunk_ids[0] == "doc.md#huge"
    assert chunk_ids[1:] == [f"doc.md#huge-part-{n}" for n in range(2, len(chunk_ids) + 1)]
    assert all(len(chunk.markdown) <= 1000 for chunk in result.chunks)
    assert all(chunk.heading == "Huge" for chunk in result.chunks)
    assert result.findings == []
    rejoined = "\n\n".join(chunk.markdown for chunk in result.chunks)
    assert rejoined == source.rstrip("\n")


def test_a_block_that_fits_on_its_own_is_never_cut() -> None:
    code = "\n".join(f"line {n}" for n in range(20))
    source = f"## Code\n\n{'short ' * 20}\n\n```\n{code}\n```\n"
    result = chunked(source, max_chunk_size=200)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#code", "doc.md#code-part-2"]
    assert result.chunks[1].markdown == f"```\n{code}\n```"
    assert result.findings == []
    assert [o.how for o in result.oversized] == ["blocks"]


def test_a_code_block_too_big_is_cut_between_lines_and_reopened_in_every_part() -> None:
    code = "\n".join(f"line {n}" for n in range(100))
    source = f"## Code\n\nshort\n\n```js title=a.js\n{code}\n```\n"
    result = chunked(source, max_chunk_size=200)
    assert len(result.chunks) > 2
    assert all(len(chunk.markdown) <= 200 for chunk in result.chunks)
    assert all(chunk.markdown.startswith(("## Code", "```js title=a.js\n")) for chunk in result.chunks)
    assert all(chunk.markdown.endswith("\n```") for chunk in result.chunks)
    middle = result.chunks[1]
    assert (middle.context_before, middle.context_after) == ("```js title=a.js\n", "\n```")
    assert middle.start_line == int(middle.own_markdown.split("\n")[0].split()[1]) + 6


def test_size_is_never_an_error_and_one_warning_names_the_cut_sections() -> None:
    rows = "\n".join(f"| r{n} | v{n} |" for n in range(60))
    table = f"| a | b |\n|---|---|\n{rows}"
    result = chunked(f"## One\n\n{table}\n\n## Two\n\n{table}\n", max_chunk_size=200)
    [finding] = result.findings
    assert (finding.rule, finding.severity, finding.line) == ("split-inside-block", "warning", 1)
    assert finding.message.startswith("2 sections over max_chunk_size 200 had to be cut inside a block")
    assert "the table at line 3" in finding.message
    assert [(o.how, o.block, o.block_line) for o in result.oversized] == [
        ("inside-block", "table", 3),
        ("inside-block", "table", 68),
    ]


def test_allow_block_splits_in_the_strategy_or_a_section_hint_silences_the_warning() -> None:
    rows = "\n".join(f"| r{n} | v{n} |" for n in range(60))
    source = f"## One\n\n| a | b |\n|---|---|\n{rows}\n"
    allowed = Strategy(max_chunk_size=200, allow_block_splits=True)
    assert chunk_file(source, "doc.md", FileSettings(strategy=allowed)).findings == []
    hinted = '<!-- mcp_section_hint: {"allow_block_splits": true} -->\n' + source
    assert chunked(hinted, max_chunk_size=200).findings == []
    assert len(chunked(hinted, max_chunk_size=200).chunks) > 3


def test_a_part_cut_from_a_table_repeats_the_header_and_owns_only_its_rows() -> None:
    rows = "\n".join(f"| r{n} | v{n} |" for n in range(60))
    result = chunked(f"## T\n\n| a | b |\n|---|---|\n{rows}\n", max_chunk_size=200)
    second = result.chunks[1]
    assert second.context_before == "| a | b |\n|---|---|\n"
    assert second.own_markdown.startswith("| r")
    first_row = int(second.own_markdown.split()[1][1:])
    assert second.start_line == first_row + 5
    assert second.text.startswith(f"a\tb\nr{first_row}\tv{first_row}")


def test_a_long_paragraph_is_cut_between_sentences_inside_a_line() -> None:
    sentences = " ".join(f"Sentence {n} says a thing." for n in range(30))
    result = chunked(f"## P\n\n{sentences}\n", max_chunk_size=200)
    parts = result.chunks[1:]
    assert parts and all(chunk.start_line == chunk.end_line == 3 for chunk in parts)
    assert all(chunk.own_markdown.startswith("Sentence ") for chunk in parts)
    assert all(chunk.own_markdown.endswith("thing.") for chunk in result.chunks)
    assert parts[0].start_column > 0 and result.chunks[0].end_column is not None


def test_small_chunks_merge_into_the_previous_chunk_when_min_chunk_size_is_set() -> None:
    source = "## Long\n\n" + "text " * 20 + "\n\n## Tiny\n\nx\n\ny\n\n## Other\n\n" + "more " * 20 + "\n"
    assert ids(source) == ["doc.md#long", "doc.md#tiny", "doc.md#other"]
    result = chunked(source, min_chunk_size=30)
    assert [chunk.id for chunk in result.chunks] == ["doc.md#long", "doc.md#other"]
    assert result.chunks[0].text.endswith("Tiny\n\nx\n\ny")
    assert result.chunks[0].end_line == 9
