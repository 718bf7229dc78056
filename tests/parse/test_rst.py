"""reStructuredText pages read with docutils (``docs_mcp.parse.rst``): the golden cases of
``tests/data/rst`` (sections, directives, roles, includes, bad markup), each read as a page of the
repository folder ``tests/data/rst/repo``, and what the markdown must be for chunking."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.rst import read_rst
from docs_mcp.parse.rst_titles import RstTitles
from docs_mcp.parse.site_include import MAX_INCLUDE_DEPTH

DATA = Path(__file__).parents[1] / "data" / "rst"
REPO = DATA / "repo"
CASES = sorted(path.stem for path in DATA.glob("*.rst"))


def read_in_repo(target: str, page: str) -> tuple[str | None, str | None]:
    """An include reader confined to ``REPO`` (the page's folder, then the docs folder, then it)."""
    docs = REPO / "docs"
    escaped = False
    for base in ((docs / page).parent, docs, REPO):
        candidate = (base / target).resolve()
        if not candidate.is_relative_to(REPO.resolve()):
            escaped = True
            continue
        if candidate.is_file():
            return candidate.read_text(encoding="utf-8"), None
    if escaped:
        return None, f"outside the repository folder {REPO}; never read"
    return None, f"no such file in {REPO}"


@pytest.mark.parametrize("case", CASES)
def test_golden_case(case: str, capfd: pytest.CaptureFixture[str]) -> None:
    source = (DATA / f"{case}.rst").read_text(encoding="utf-8")
    result = read_rst(source, f"{case}.rst", read_in_repo)
    expected = (DATA / f"{case}.md").read_text(encoding="utf-8")
    assert result.text + "\n" == expected
    notes = "".join(f"{note.line} {note.rule}\n" for note in result.notes)
    assert notes == (DATA / f"{case}.notes").read_text(encoding="utf-8")
    assert result.origins is not None and len(result.origins) == len(result.text.split("\n"))
    assert all(1 <= line <= len(source.split("\n")) for line in result.origins)
    assert capfd.readouterr() == ("", ""), "docutils wrote to the terminal"


def test_sections_are_headings_on_their_page_lines_with_docutils_ids() -> None:
    source = (DATA / "sections.rst").read_text(encoding="utf-8")
    result = read_rst(source, "sections.rst")
    lines, page = result.text.split("\n"), source.split("\n")
    assert result.origins is not None
    headings = [(n, line.lstrip("# ")) for n, line in enumerate(lines) if line.startswith("#")]
    assert [title for _, title in headings] == [
        "Page Title",
        "Installation",
        "Configuration",
        "Configuration",
    ]
    assert all(page[result.origins[n] - 1] == title for n, title in headings)
    assert list(result.heading_ids.values()) == [
        "page-title",
        "installation",
        "configuration",
        "configuration-1",
    ]


def test_chunks_carry_the_same_id_scheme_as_markdown_pages() -> None:
    result = read_rst((DATA / "sections.rst").read_text(encoding="utf-8"), "sections.rst")
    chunked = chunk_file(result.text, "sections.rst", FileSettings())
    ids = [chunk.id for chunk in chunked.chunks]
    assert ids == [
        "sections.rst#page-title",
        "sections.rst#page-title/installation",
    ]
    assert all(":param" not in chunk.text and "::" not in chunk.text for chunk in chunked.chunks)


def test_an_include_escaping_the_repository_is_a_finding_and_never_read() -> None:
    result = read_rst(".. include:: ../../../../../etc/hostname\n", "p.rst", read_in_repo)
    assert [(note.line, note.rule) for note in result.notes] == [(1, "include-outside")]
    assert result.text == ""


def test_an_include_cycle_stops_at_the_depth_limit() -> None:
    source = (REPO / "docs" / "self.rst").read_text(encoding="utf-8")
    result = read_rst(source, "self.rst", read_in_repo)
    assert result.text.count("# Includes itself") == 1 + MAX_INCLUDE_DEPTH
    assert [note.rule for note in result.notes][-1] == "include-missing"


@pytest.mark.parametrize(
    "source",
    [
        "\x00\x01 binary \x7f",
        ".. " * 5_000,
        "\n".join(" " * depth + "- item" for depth in range(0, 400, 2)),
        "> " * 2_000 + "quote",
        "=" * 10 + "\nTitle\n" + "-" * 3,
        ".. include::\n",
        ".. literalinclude:: ../../../../etc/passwd\n",
        "`" * 999,
        "|" + "x" * 10_000,
    ],
)
def test_hostile_input_never_raises_nor_prints(source: str, capfd: pytest.CaptureFixture[str]) -> None:
    result = read_rst(source, "hostile.rst", read_in_repo)
    assert isinstance(result.text, str)
    assert all(note.rule for note in result.notes)
    assert capfd.readouterr() == ("", "")


def test_references_without_text_show_the_title_they_point_at() -> None:
    titles = RstTitles()
    titles.add("appcontext.rst", "The Application Context\n=======================\n\nText.\n")
    titles.add(
        "config.rst",
        "=============\nConfiguration\n=============\n\n.. _config-dev-prod:\n\nDevelopment / Production\n"
        "------------------------\n",
    )
    source = (
        "Page\n====\n\n"
        "Read :doc:`/appcontext`, :doc:`config`, :ref:`config-dev-prod`, :ref:`Config-Dev-Prod`,\n"
        ":ref:`own <config-dev-prod>`, :ref:`no-such-label` and :doc:`missing`.\n"
    )
    result = read_rst(source, "page.rst", titles=titles)
    assert result.text.split("\n")[2:4] == [
        "Read The Application Context, Configuration, Development / Production, Development / Production,",
        "own, no such label and missing.",
    ]
