"""The evaldata sets whose API reference is generated from source (issue 32), built raw (full text):
flask (Sphinx, reStructuredText, ``autodoc`` over ``src/flask``) and openai-agents (mkdocs, 244
mkdocstrings ``::: agents.x`` stub pages over ``src/agents``).

Each build must index at least 90% of the pages (the API pages resolved from source), leave no
reStructuredText or mkdocstrings syntax in any indexed text or markdown (a scan written apart from
the readers), and find each question's gold section among the first 3 hits."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import lancedb
import pytest

from docs_mcp.cli.main import main
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
# reStructuredText and mkdocstrings syntax, outside code: directives, label targets, roles, stubs.
_LEAKS = re.compile(
    r"^\s*(?:>\s*)*\.\.\s+[\w:|-]+(?:::|:)(?:\s|$)|:[\w:+.-]+:`[^`]+`|^\s*(?:>\s*)*:::\s+[\w.]+",
    re.MULTILINE,
)
_FENCED = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(?<![:`])(`+)(?!`).+?(?<!`)\1(?!`)")  # not a role's `target`


def leaked(markdown: str) -> list[str]:
    """The syntax left in ``markdown`` outside fenced code and code spans."""
    bare = _CODE_SPAN.sub("", _FENCED.sub("", markdown))
    return [match.group(0).strip() for match in _LEAKS.finditer(bare)]


@pytest.fixture(scope="module", params=sorted(SETS))
def built(
    request: pytest.FixtureRequest, evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, Path, Path]:
    """(set, copied docs folder, raw index)."""
    name: str = request.param
    source = evaldata_dir / "sites" / name
    if not source.is_dir():
        pytest.skip(f"no sites/{name} in {evaldata_dir}")
    work = tmp_path_factory.mktemp(name)
    shutil.copytree(source, work / name)
    index = work / "index"
    assert main(["build", "--docs-dir", str(work / name / "docs"), "--out", str(index), "--quiet"]) == 0
    return name, work / name / "docs", index


def _rows(index: Path) -> list[dict[str, object]]:
    table = lancedb.connect(str(index / LANCEDB_DIR)).open_table(TABLE_NAME)
    return table.to_arrow().select(["id", "file_path", "markdown", "text"]).to_pylist()


def test_nine_in_ten_pages_are_indexed_api_pages_included(built: tuple[str, Path, Path]) -> None:
    name, docs, index = built
    suffix = SETS[name][0]
    pages = {path.relative_to(docs).as_posix() for path in docs.rglob(f"*{suffix}")}
    indexed = {str(row["file_path"]) for row in _rows(index)}
    assert len(indexed & pages) >= 0.9 * len(pages), (name, len(indexed & pages), len(pages))
    api_pages = {"flask": {"api.rst"}, "openai-agents": {p for p in pages if p.startswith("ref/")}}[name]
    assert len(indexed & api_pages) >= 0.9 * len(api_pages)


def test_no_rst_or_mkdocstrings_syntax_is_indexed(built: tuple[str, Path, Path]) -> None:
    name, _, index = built
    found = {
        str(row["id"]): hits
        for row in _rows(index)
        if (hits := leaked(str(row["markdown"])) + leaked(str(row["text"])))
    }
    assert found == {}, f"{name}: syntax left in {len(found)} chunks"


def test_each_question_finds_its_gold_section_in_the_top_three(built: tuple[str, Path, Path]) -> None:
    name, _, index = built
    docs_index = DocsIndex.open(index)
    ranks = {}
    for question, gold in SETS[name][1]:
        hits = [hit.chunk_id for hit in docs_index.search(SearchRequest(question, limit=10)).hits]
        ranks[question] = hits.index(gold) + 1 if gold in hits else None
    assert all(rank is not None and rank <= 3 for rank in ranks.values()), (name, ranks)


def test_the_leak_scan_sees_what_it_looks_for() -> None:
    assert leaked(".. note::\n   x\n") and leaked("See :meth:`a.b`.") and leaked("::: agents.agent\n")
    assert leaked(".. _label:\n") and not leaked("```\n.. code-block:: python\n```\n")
    assert not leaked("Use `:meth:` roles") and not leaked("A sentence... with dots: fine.")
