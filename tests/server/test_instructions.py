"""Initialize instructions and tool descriptions come from the corpus description and taxonomy."""

from __future__ import annotations

from docs_mcp.server.tools.instructions import get_description, search_description, server_instructions

FACETS = {"language": ["go", "python"], "scope": ["global-guide", "sdk-specific"]}


def test_instructions_describe_the_corpus_its_taxonomy_and_the_workflow() -> None:
    text = server_instructions("the Acme SDK docs.", "Prefer the v2 API.", FACETS, chunk_count=42)
    assert text == (
        "This server answers questions from the Acme SDK docs (42 sections).\n"
        "\n"
        "Prefer the v2 API.\n"
        "\n"
        "Results can be filtered by these facets (search_docs arguments):\n"
        "- language: go, python\n"
        "- scope: global-guide, sdk-specific\n"
        "\n"
        "Workflow: call search_docs with a specific query and, when you know it, the user's `language`; "
        "read the snippets; call get_doc with a chunk_id to read that section in full (context 1-5 adds "
        "neighbouring sections). For more results pass next_cursor as `cursor` (alone is enough). An "
        "empty result carries a hint with filters that do match."
    )


def test_instructions_without_description_or_facets_stay_generic() -> None:
    text = server_instructions(None, None, {})
    assert text.startswith("This server answers questions from a documentation corpus.")
    assert "facets" not in text and "language" not in text


def test_the_search_description_names_the_corpus_and_every_filter() -> None:
    text = search_description("the Acme SDK docs", FACETS)
    assert text.startswith("Search the Acme SDK docs")
    assert "Always set `language`" in text
    assert "Filters: language (go, python); scope (global-guide, sdk-specific)." in text


def test_the_get_description_explains_context_and_positions() -> None:
    assert "'3 of 12'" in get_description() and "0-5" in get_description()
