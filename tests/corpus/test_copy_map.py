"""A build writes each copy's main copy from ``CopyFinder.main_copies`` (``corpus.copy_map``: the
groups joined over section numbers, members looked up by id hash) instead of the groups' lists of ids
(issue 34): it must name the same main copy for every chunk, and count the same groups, as
``copy_groups`` over the corpus held whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus import copies
from docs_mcp.corpus.copies import CopyFinder, copy_groups
from docs_mcp.corpus.copy_map import CopyUnion
from docs_mcp.corpus.loader import load_corpus
from testkit.evaldata_sets import materialize_sdk_copies
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(600)  # two copies of the SDK corpora loaded whole: minutes under load


def _same_as_the_groups(
    tmp_path: Path, chunks: list[Chunk], declared: tuple[tuple[str, str], ...] = ()
) -> int:
    groups = copy_groups(chunks, declared)
    expected = {cid: group[0] for group in groups for cid in group}
    with CopyFinder(tmp_path) as finder:
        for chunk in chunks:
            finder.add(chunk)
        found = finder.main_copies(declared)
        leads = finder.groups(declared).other_leads
    assert found.groups == len(groups)
    assert found.other_leads == leads
    assert found.column([chunk.id for chunk in chunks]) == [expected.get(chunk.id) for chunk in chunks]
    return len(groups)


def test_the_main_copies_of_two_copies_of_the_sdk_corpora_are_the_groups_first_members(
    tmp_path: Path, evaldata_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copies within each copy (PyPI twins, per-package pages) and across the two: groups merged
    from both blocks; read back a few sections at a time, as a large build does."""
    monkeypatch.setattr(copies, "FETCH_SECTIONS", 64)
    docs = materialize_sdk_copies(evaldata_dir / "corpora", tmp_path / "docs", 2)
    corpus = load_corpus(docs)
    assert _same_as_the_groups(tmp_path, corpus.chunks, corpus.declared_copies) > 1000


def test_declared_copies_join_their_groups(tmp_path: Path) -> None:
    main = (
        "# Acme\n\n## Background\n\nRetry failed calls with backoff.\n\n## Pages\n\nCall next() on a page.\n"
    )
    azure = "# Acme on Azure\n\n## Background\n\nThe deployment retries by itself.\n"
    manifest = (
        '{"version": "1", "strategy": {"chunk_by": "h2"}, '
        '"overrides": [{"pattern": "packages/*/README.md", "copy_of": "README.md"}]}'
    )
    files = {
        "README.md": main,
        "README-PYPI.md": main,  # a twin of the original: found by its text, joined with the declared
        "packages/azure/README.md": azure,
        ".docs-mcp.json": manifest,
    }
    corpus = load_corpus(write_docs(tmp_path / "docs", files))
    assert corpus.declared_copies
    assert _same_as_the_groups(tmp_path, corpus.chunks, corpus.declared_copies) >= 2


def test_a_chunk_outside_every_group_has_no_main_copy() -> None:
    union = CopyUnion(4)
    union.add([(0, (0, 1, "a.md#x", 7)), (2, (1, 1, "b/README-PYPI.md#x", 7))])
    union.add([(3, (1, 2, "c/packages/p/a.md#x", 7)), (2, (1, 1, "b/README-PYPI.md#x", 7))])
    found = union.result()
    assert found.groups == 1
    assert found.column(["a.md#x", "b/README-PYPI.md#x", "c/packages/p/a.md#x", "d.md#x", ""]) == [
        "a.md#x",
        "a.md#x",
        "a.md#x",
        None,
        None,
    ]
    assert CopyUnion(0).result().column(["a.md#x"]) == [None]


def test_the_first_member_of_each_other_combination_of_facet_values_leads_too() -> None:
    """A declared copy may hold other facet values than its original: the best-ranked member of each
    such combination is a lead, so a filter on facet values that lets a copy through finds its group."""
    union = CopyUnion(5)
    union.add([(0, (0, 1, "a.md#x", 1)), (1, (10, 1, "go/a.md#x", 2))])
    union.add([(2, (10, 2, "go/p/a.md#x", 2)), (0, (0, 1, "a.md#x", 1))])
    union.add([(3, (1, 1, "b.md#y", 1)), (4, (1, 1, "c.md#y", 1))])
    found = union.result()
    assert found.groups == 2
    assert found.other_leads == frozenset({"go/a.md#x"})
    assert found.column(["go/p/a.md#x", "c.md#y"]) == ["a.md#x", "b.md#y"]
