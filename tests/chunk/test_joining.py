"""Thin pieces join a neighbour (issue 32): metadata-only preambles go to the first section, and a
one-line section with no subsection after it joins the chunk before it (the first of a file: the
one after it). The chunk that takes it in keeps its id; the joined heading stays searchable text."""

from __future__ import annotations

from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import Chunk, FileSettings
from docs_mcp.parse.strategy import Strategy

DESIGN = "A design that says a good deal, over several lines.\nIt goes on.\nAnd on.\n"


def chunks(source: str, path: str = "doc.md", **strategy: object) -> list[Chunk]:
    settings = FileSettings(strategy=Strategy(**strategy)) if strategy else FileSettings()  # type: ignore[arg-type]
    return chunk_file(source, path, settings).chunks


def test_an_rfc_header_preamble_joins_the_first_section_and_its_one_line_sections_join_the_one_before() -> (
    None
):
    source = (
        "- Feature Name: `tidy_chunks`\n- Start Date: 2020-01-01\n"
        "- RFC PR: [rust-lang/rfcs#1](https://github.com/rust-lang/rfcs/pull/1)\n\n"
        f"# Summary\n\n{DESIGN}\n# Drawbacks\n\nNone.\n\n# Unresolved questions\n\nNone so far.\n"
    )
    [only] = chunks(source, "text/0001-tidy.md", chunk_by="h1")
    assert (only.id, only.heading, only.start_line) == ("text/0001-tidy.md#summary", "Summary", 1)
    assert "Start Date: 2020-01-01" in only.text
    assert "Drawbacks\n\nNone." in only.text and "Unresolved questions\n\nNone so far." in only.text
    assert only.markdown == source.rstrip("\n")


def test_a_preamble_of_comments_anchors_and_link_definitions_is_no_chunk() -> None:
    source = (
        '<!-- markdownlint-disable -->\n<a id="top"></a>\n{#changelog}\n\n'
        "[1.0.0]: https://x.dev/compare/0.9...1.0\n[0.9.0]: https://x.dev/releases/0.9\n\n"
        "## 1.0.0\n\n- Added joining.\n- Fixed ids.\n"
    )
    assert [chunk.id for chunk in chunks(source)] == ["doc.md#100"]


def test_a_preamble_with_a_sentence_stays_a_chunk_of_its_own() -> None:
    source = "Status: draft\n\nThis page explains the rules.\n\n## Rules\n\nOne.\nTwo.\n"
    assert [chunk.id for chunk in chunks(source)] == ["doc.md#_preamble", "doc.md#rules"]


def test_the_first_one_line_section_of_a_file_joins_its_next_sibling_which_keeps_its_id() -> None:
    source = f"## Status\n\nAccepted\n\n## Context\n\n{DESIGN}"
    [only] = chunks(source)
    assert (only.id, only.heading, only.start_line) == ("doc.md#context", "Context", 1)
    assert only.text.startswith("Status\n\nAccepted\n\n")


def test_a_short_lead_of_subsections_keeps_its_chunk_and_its_anchor() -> None:
    source = f"# Links\n\nCreate a link.\n\n## Parameters\n\n{DESIGN}"
    assert [chunk.id for chunk in chunks(source)] == ["doc.md#links", "doc.md#links/parameters"]


def test_one_liners_side_by_side_and_empty_headings_stay_apart() -> None:
    glossary = (
        "## Chunk\n\nA section of a page.\n\n## Facet\n\nA filter value.\n\n## Hit\n\nA search result.\n"
    )
    assert len(chunks(glossary)) == 3
    empty = f"## Context\n\n{DESIGN}\n## Install\n\n## Install on Linux\n\n{DESIGN}"
    assert [chunk.id for chunk in chunks(empty)] == [
        "doc.md#context",
        "doc.md#install",
        "doc.md#install-on-linux",
    ]


def test_a_section_whose_heading_names_an_sdk_role_keeps_its_chunk() -> None:
    source = (
        "## create\n\nCreate a link.\n\n"
        "### Parameters\n\n| Parameter | Type |\n| --- | --- |\n| `url` | str |\n\n"
        "### Response\n\n**[models.Link](../models/link.md)**\n\n### Errors\n\n| Error | Status |\n"
        "| --- | --- |\n| NotFound | 404 |\n"
    )
    assert [chunk.id for chunk in chunks(source, chunk_by="h3")] == [
        "doc.md#create",
        "doc.md#create/parameters",
        "doc.md#create/response",
        "doc.md#create/errors",
    ]


def test_a_one_line_section_never_joins_across_its_parent_or_a_hinted_scope() -> None:
    other_parent = (
        f"# Tokens\n\n## Refresh\n\n{DESIGN}\n# Keys\n\n## Rotate\n\nRotate yearly.\n\n## Revoke\n\n{DESIGN}"
    )
    assert [chunk.id for chunk in chunks(other_parent)] == [
        "doc.md#tokens/refresh",
        "doc.md#keys/rotate",
        "doc.md#keys/revoke",
    ]
    hinted = (
        f'## Guide\n\n{DESIGN}\n<!-- mcp_metadata: {{"kind": "reference"}} -->\n## Limits\n\n100 a minute.\n'
    )
    assert [chunk.id for chunk in chunks(hinted)] == ["doc.md#guide", "doc.md#limits"]


def test_a_join_never_takes_a_chunk_over_its_max_size() -> None:
    source = f"## Design\n\n{DESIGN}\n## Drawbacks\n\nNone.\n"
    assert len(chunks(source)) == 1
    assert len(chunks(source, max_chunk_size=len(source) - 5)) == 2
