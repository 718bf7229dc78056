"""The evaldata sets whose API reference is generated from source (issue 32), built raw and after
``fix --write`` (full text, ``conftest.site_build``): flask (Sphinx, reStructuredText, ``autodoc``
over ``src/flask``) and openai-agents (mkdocs, 244 mkdocstrings ``::: agents.x`` stub pages over
``src/agents``).

Each build must index at least 90% of the API pages (resolved from source), leave no
reStructuredText or mkdocstrings syntax in any indexed text or markdown (``site_leaks.rst_leaks``, a
scan written apart from the readers), and find each question's gold section among the first 3 hits.
``test_sites.py`` checks the rest (pages, stubs, name, URLs, gold pages) as for every set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import lancedb
import pytest
from site_builds import SiteBuild
from site_leaks import rst_leaks

from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME

pytestmark = pytest.mark.timeout(600)

# set -> (page suffix, [(question, gold chunk id)]); written by reading the pages and the source.
SETS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "flask": (
        ".rst",
        [
            ("Flask.route decorator parameters", "api.rst#api/application-object/flask/route"),
            (
                "register a function to handle 404 errors",
                "errorhandling.rst#handling-application-errors/error-handlers",
            ),
            (
                "send a file from a directory safely with send_from_directory",
                "api.rst#api/useful-functions-and-classes/sendfromdirectory",
            ),
        ],
    ),
    "openai-agents": (
        ".md",
        [
            ("function_tool decorator arguments", "ref/decorators.md#decorators/functiontool"),
            (
                "ModelSettings temperature setting",
                "ref/model_settings.md#model-settings/modelsettings",
            ),
            ("filter the input passed to a handoff", "ref/handoffs.md#handoffs/handoffinputfilter"),
        ],
    ),
}


@pytest.fixture(scope="module", params=sorted(SETS))
def built(request: pytest.FixtureRequest, site_build: Callable[[str], SiteBuild]) -> SiteBuild:
    return site_build(request.param)


def _rows(index: Path) -> list[dict[str, object]]:
    table = lancedb.connect(str(index / LANCEDB_DIR)).open_table(TABLE_NAME)
    return table.to_arrow().select(["id", "file_path", "markdown", "text"]).to_pylist()


def test_nine_in_ten_pages_are_indexed_api_pages_included(built: SiteBuild) -> None:
    suffix = SETS[built.name][0]
    pages = {path.relative_to(built.docs).as_posix() for path in built.docs.rglob(f"*{suffix}")}
    api_pages = {"flask": {"api.rst"}, "openai-agents": {p for p in pages if p.startswith("ref/")}}[
        built.name
    ]
    for index in built.indexes:
        indexed = {str(row["file_path"]) for row in _rows(index)}
        assert len(indexed & pages) >= 0.9 * len(pages), (built.name, len(indexed & pages), len(pages))
        assert len(indexed & api_pages) >= 0.9 * len(api_pages)


def test_no_rst_or_mkdocstrings_syntax_is_indexed(built: SiteBuild) -> None:
    for index in built.indexes:
        found = {
            str(row["id"]): hits
            for row in _rows(index)
            if (hits := rst_leaks(str(row["markdown"])) + rst_leaks(str(row["text"])))
        }
        assert found == {}, f"{built.name} ({index.name}): syntax left in {len(found)} chunks"


def test_each_question_finds_its_gold_section_in_the_top_three(built: SiteBuild) -> None:
    for index in built.indexes:
        docs_index = DocsIndex.open(index)
        ranks = {}
        for question, gold in SETS[built.name][1]:
            hits = [hit.chunk_id for hit in docs_index.search(SearchRequest(question, limit=10)).hits]
            ranks[question] = hits.index(gold) + 1 if gold in hits else None
        assert all(rank is not None and rank <= 3 for rank in ranks.values()), (built.name, index.name, ranks)


def test_the_leak_scan_sees_what_it_looks_for() -> None:
    assert (
        rst_leaks(".. note::\n   x\n") and rst_leaks("See :meth:`a.b`.") and rst_leaks("::: agents.agent\n")
    )
    assert rst_leaks(".. _label:\n") and not rst_leaks("```\n.. code-block:: python\n```\n")
    assert not rst_leaks("Use `:meth:` roles") and not rst_leaks("A sentence... with dots: fine.")
