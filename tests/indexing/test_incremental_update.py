"""A rebuild after a few edits updates the previous index in place of writing it anew (issue 34,
``indexing/incremental.py``): the same rows, manifest, word counts and top answers as a full build of
the edited folder; the index a reader holds keeps answering; a failed update leaves the old index."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import lancedb
import pytest

from docs_mcp.corpus import copy_changes
from docs_mcp.corpus import known_pages as scan_module
from docs_mcp.corpus.copies import CopyFinder
from docs_mcp.corpus.copy_changes import CopyState
from docs_mcp.indexing import incremental, terms
from docs_mcp.indexing.index_state import STATE_FILE
from docs_mcp.indexing.pipeline import BuildOptions, BuildResult, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import FILES, write_docs

pytestmark = pytest.mark.timeout(180)

# Queries whose top hits a full build ranks apart (``widget`` ties sixty sections: see ``_top``).
QUERIES = ["retry with backoff", "create a link", "cursor next page", "timeout", "topic 7 ferret", "pangolin"]
# An update indexes the added rows in a segment of their own and leaves the deleted ones in the full
# build's BM25 statistics: the edited page's words count twice until the next full build, and its
# scores drop (13.5% at most here, a table of 200 rows; the drift shrinks as the table grows:
# docs/scaling.md). The top answers stay a full build's.
SCORE_DRIFT = 0.15
ANIMALS = ["ferret", "otter", "badger", "heron", "lynx", "marten", "stoat", "vole"]
# A pasted block (more than LONG_QUERY_WORDS words): its rarest words are found in the ``terms`` table.
LONG_QUERY = " ".join(f"topic {n} {ANIMALS[n % len(ANIMALS)]} eats twice" for n in range(30))


def _pages(count: int = 60) -> dict[str, str]:
    """``FILES`` and ``count`` more pages: enough rows that one edit is a small share of the table."""
    pages = dict(FILES)
    for n in range(count):
        animal = ANIMALS[n % len(ANIMALS)]
        pages[f"guides/topic-{n:02d}.md"] = (
            f"# Topic {n}\n\nAn overview of topic {n} and the {animal}.\n\n"
            f"## Feeding the {animal}\n\nThe {animal} of topic {n} eats twice a day.\n\n"
            f"## Housing\n\nTopic {n} keeps a {animal} in a pen with a widget.\n"
        )
    return pages


def _rows(out: Path) -> list[dict[str, object]]:
    rows = lancedb.connect(str(out / ".lancedb")).open_table("chunks").to_arrow().to_pylist()
    return sorted(rows, key=lambda row: str(row["id"]))


def _terms(out: Path) -> dict[str, int]:
    read = lancedb.connect(str(out / ".lancedb")).open_table("terms").to_arrow()
    return dict(zip(read["term"].to_pylist(), read["chunks"].to_pylist(), strict=True))


def _top(out: Path, count: int = 3) -> list[list[str]]:
    index = DocsIndex.open(out)
    return [[hit.chunk_id for hit in index.search(SearchRequest(q)).hits[:count]] for q in QUERIES]


def _scores(out: Path) -> dict[str, float]:
    index = DocsIndex.open(out)
    return {
        hit.chunk_id: hit.score or 0.0 for q in QUERIES for hit in index.search(SearchRequest(q)).hits[:3]
    }


def _fresh(docs: Path, tmp_path: Path, **options: object) -> Path:
    fresh = tmp_path / "fresh"
    result = build(BuildOptions(docs_dir=docs, out=fresh, cache_dir=tmp_path / "fresh-cache", **options))  # type: ignore[arg-type]
    assert not result.incremental
    return fresh


def _assert_same_as_a_full_build(docs: Path, out: Path, tmp_path: Path, **options: object) -> None:
    fresh = _fresh(docs, tmp_path, **options)
    assert _rows(out) == _rows(fresh)  # every column of every row (the order in the table differs)
    assert (out / MANIFEST_FILE).read_bytes() == (fresh / MANIFEST_FILE).read_bytes()
    assert _terms(out) == _terms(fresh)
    assert _top(out) == _top(fresh)
    updated, full = _scores(out), _scores(fresh)
    assert updated.keys() == full.keys()
    assert all(abs(updated[key] - full[key]) <= SCORE_DRIFT * full[key] for key in full), (updated, full)


def _edit(docs: Path) -> None:
    """One page edited, one added, one removed."""
    page = docs / "guides" / "topic-07.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## Grooming\n\nBrush the ferret weekly.\n")
    (docs / "guides" / "topic-new.md").write_text("# New topic\n\n## Pangolins\n\nA pangolin rolls up.\n")
    (docs / "guides" / "topic-30.md").unlink()


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("provider", ["none", "hash"])
def test_edited_added_and_removed_files_update_the_index_as_a_full_build_would(
    tmp_path: Path, provider: str
) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out", embedding_provider=provider)
    first = build(options)
    assert not first.incremental
    _edit(docs)
    updated = build(options)
    assert updated.incremental
    assert updated.cache_misses in (None, 2)  # only the new sections were embedded
    _assert_same_as_a_full_build(docs, tmp_path / "out", tmp_path, embedding_provider=provider)
    assert "pangolin" in _terms(tmp_path / "out") and "topic-30" not in json.dumps(_top(tmp_path / "out"))
    assert _top(tmp_path / "out")[-1][0] == "guides/topic-new.md#new-topic/pangolins"


def test_successive_updates_stay_equal_to_a_full_build_until_the_bound_makes_one(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    results: list[BuildResult] = []
    for n in range(8):
        page = docs / "guides" / f"topic-{n:02d}.md"
        page.write_text(page.read_text(encoding="utf-8").replace("twice", f"{n + 3} times"))
        results.append(build(BuildOptions(docs_dir=docs, out=out)))
    rows = results[0].chunk_count
    # Each edit rewrites 3 rows (deleted and added: 6); the bound lets through what stays under it.
    allowed = int(incremental.MAX_REWRITTEN_SHARE * rows) // 6
    assert [result.incremental for result in results[: allowed + 1]] == [True] * allowed + [False]
    _assert_same_as_a_full_build(docs, out, tmp_path)


def test_an_index_held_open_keeps_answering_through_and_after_the_update(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    held = DocsIndex.open(out)
    old_copy = shutil.copytree(out, tmp_path / "old-copy")
    before = [[hit.chunk_id for hit in held.search(SearchRequest(q)).hits] for q in QUERIES]
    window = held.get("guides/topic-07.md#topic-7/feeding-the-vole", context=1)
    _edit(docs)
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental
    # The old files are still there (the new folder holds them by hard link): the held index answers
    # as it did, without reopening, and the reopened one sees the edit.
    assert [[hit.chunk_id for hit in held.search(SearchRequest(q)).hits] for q in QUERIES] == before
    # Its first long query reads the old ``terms`` table's files only now.
    long_hits = [hit.chunk_id for hit in held.search(SearchRequest(LONG_QUERY)).hits]
    assert long_hits and long_hits == [
        hit.chunk_id for hit in DocsIndex.open(old_copy).search(SearchRequest(LONG_QUERY)).hits
    ]
    assert held.get("guides/topic-07.md#topic-7/feeding-the-vole", context=1) == window
    reopened = DocsIndex.open(out)
    assert reopened.search(SearchRequest("pangolin rolls")).hits[0].chunk_id.startswith("guides/topic-new.md")
    assert not [hit for hit in reopened.search(SearchRequest("topic 30")).hits if "topic-30" in hit.chunk_id]


def test_a_failure_mid_update_leaves_the_previous_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    before, answers = _digests(out), _top(out)
    _edit(docs)

    def fail(*_args: object) -> None:
        raise RuntimeError("the disk went away")  # after the staging copy's delete and add

    with monkeypatch.context() as patch:
        patch.setattr(terms.WordChanges, "apply", fail)
        with pytest.raises(RuntimeError, match="went away"):
            build(BuildOptions(docs_dir=docs, out=out))
    assert _digests(out) == before  # not one byte of the served folder changed
    assert _top(out) == answers
    assert [p.name for p in tmp_path.iterdir() if ".building-" in p.name] == []
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental  # the record still holds
    _assert_same_as_a_full_build(docs, out, tmp_path)


def test_an_index_changed_behind_the_builds_back_gets_a_full_build(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    other = write_docs(tmp_path / "other", FILES)
    build(BuildOptions(docs_dir=other, out=out, cache_dir=tmp_path / "other-cache"))  # OUT replaced
    _edit(docs)
    assert not build(BuildOptions(docs_dir=docs, out=out)).incremental
    _assert_same_as_a_full_build(docs, out, tmp_path)


def test_a_new_facet_or_build_full_writes_the_whole_index(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    extra = {"version": "1", "metadata": {"scope": "global-guide", "audience": "admins"}}
    write_docs(
        docs, {"admins/.docs-mcp.json": json.dumps(extra), "admins/a.md": "# Admins\n\n## Keys\n\nRotate.\n"}
    )
    assert not build(BuildOptions(docs_dir=docs, out=out)).incremental  # a facet column more
    _edit(docs)
    assert not build(BuildOptions(docs_dir=docs, out=out, full=True)).incremental
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental  # nothing changed since


@pytest.mark.parametrize("damage", [b"{not json", b'{"format": "docs-mcp index state 1", "files": 3}', b"[]"])
def test_a_damaged_record_of_the_last_build_makes_a_full_build_not_a_failed_one(
    tmp_path: Path, damage: bytes
) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    cache = build(BuildOptions(docs_dir=docs, out=out)).cache_dir
    assert cache is not None
    (cache / STATE_FILE).write_bytes(damage)
    _edit(docs)
    assert not build(BuildOptions(docs_dir=docs, out=out)).incremental
    _assert_same_as_a_full_build(docs, out, tmp_path)
    page = docs / "guides" / "topic-08.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n")
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental  # recorded again


def _lines(cache: Path) -> list[str]:
    return (cache / STATE_FILE).read_text(encoding="utf-8").splitlines(keepends=True)


@pytest.mark.parametrize(
    "damage",
    [
        lambda lines: lines[:-1],  # a file's line missing
        lambda lines: [*lines[:-1], lines[-1].rstrip("\n")],  # cut short after its last line
        lambda lines: [lines[0], *reversed(lines[1:])],  # out of path order
        lambda lines: [*lines[:-1], lines[-1][:10] + "\n"],  # a line cut short
    ],
)
def test_a_record_damaged_in_its_files_makes_a_full_build(
    tmp_path: Path, damage: Callable[[list[str]], list[str]]
) -> None:
    """The record is read a line at a time as the build compares its files: a damage found after the
    header has been read (and some files compared) still makes the build a full one."""
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    cache = build(BuildOptions(docs_dir=docs, out=out)).cache_dir
    assert cache is not None
    (cache / STATE_FILE).write_text("".join(damage(_lines(cache))), encoding="utf-8")
    _edit(docs)
    assert not build(BuildOptions(docs_dir=docs, out=out)).incremental
    _assert_same_as_a_full_build(docs, out, tmp_path)


def test_the_record_of_an_older_build_makes_a_full_build_then_updates_follow(tmp_path: Path) -> None:
    """A cache an older docs-mcp wrote holds its record as one JSON document (``index-state.json``):
    the next build is a full one, records in this format, and drops the old file."""
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    cache = build(BuildOptions(docs_dir=docs, out=out)).cache_dir
    assert cache is not None
    header = json.loads(_lines(cache)[0])
    files = [json.loads(line) for line in _lines(cache)[1:]]
    old = {
        **{key: header[key] for key in ("fingerprint", "out", "schema", "manifest", "version", "rows")},
        "format": "docs-mcp index state 2",
        "files": [[path, f"{key}|{copies}", rows] for path, key, copies, rows in files],
        "rewritten": 0,
        "updates": 0,
        "copy_state": header["copy_state"],
    }
    (cache / STATE_FILE).unlink()
    (cache / "index-state.json").write_text(json.dumps(old), encoding="utf-8")
    _edit(docs)
    assert not build(BuildOptions(docs_dir=docs, out=out)).incremental
    assert not (cache / "index-state.json").exists()
    assert len(_lines(cache)) == len(files) + 1
    page = docs / "guides" / "topic-08.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n")
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental
    _assert_same_as_a_full_build(docs, out, tmp_path)


# A model page, its per-package copies (one folder each under packages/) and its -PYPI twin: copies
# of one another (corpus/copies.py), the one outside packages/ the main copy.
RETRY = (
    "# RetryConfig\n\nHow a client retries a failed request.\n\n"
    "## Fields\n\nThe strategy field names the backoff to use, and retry_connection_errors says "
    "whether a dropped connection is retried as well as an error status.\n"
)
MAIN = "sdk/docs/models/retryconfig.md"
AZURE = "sdk/packages/azure/docs/models/retryconfig.md"
GCP = "sdk/packages/gcp/docs/models/retryconfig.md"


def _copy_of(out: Path) -> dict[str, object]:
    return {str(row["id"]): row["copy_of"] for row in _rows(out) if "retryconfig" in str(row["id"])}


@pytest.mark.parametrize("trusted", [False, True], ids=["read", "by-stat"])
def test_an_edit_that_changes_other_files_copies_rewrites_their_rows_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trusted: bool
) -> None:
    """The ``copy_of`` column of a page's copies names its group's main copy: an edit of the main
    copy (no copy any more), an added copy and a removed one change rows of files not edited. The
    groups are regrouped from the last build's (``corpus/copy_changes.py``), as a full build finds.
    ``by-stat``: the unchanged pages are not read (``indexing/first_pass.py``): the sections of the
    blocks regrouped and the rows rewritten come from the chunk cache."""
    if trusted:  # the pages are written a moment before each build (see corpus/scan.py)
        monkeypatch.setattr(scan_module, "RACY_MARGIN_NS", 0)
    regrouped: list[set[str]] = []

    def counted(finder: CopyFinder, previous: CopyState, changed: set[str]) -> list[list[str]]:
        regrouped.append(changed)
        return copy_changes.regroup(finder, previous, changed)

    monkeypatch.setattr(incremental, "regroup", counted)
    # A page of one untitled section: its chunk id is its path (no "#"); a copy too.
    usage = "Call the client with your API key and read the result.\n"
    pages = {
        **_pages(200),
        MAIN: RETRY,
        AZURE: RETRY,
        "sdk/USAGE.md": usage,
        "sdk/packages/azure/USAGE.md": usage,
    }
    docs = write_docs(tmp_path / "docs", pages)  # 10% of the rows: 60
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    main_fields = f"{MAIN}#retryconfig/fields"
    assert _copy_of(out)[f"{AZURE}#retryconfig/fields"] == main_fields  # a group: its rows say so
    assert {row["id"]: row["copy_of"] for row in _rows(out)}["sdk/packages/azure/USAGE.md"] == "sdk/USAGE.md"
    gcp_copy = docs / GCP
    gcp_copy.parent.mkdir(parents=True)
    steps: list[Callable[[], object]] = [
        lambda: gcp_copy.write_text(RETRY),  # a copy more
        lambda: (docs / AZURE).unlink(),  # a copy less: GCP's rows still name MAIN
        lambda: (docs / MAIN).write_text(RETRY.split("## Fields")[0] + "## Fields\n\nSee the guide.\n"),
        lambda: (docs / MAIN).write_text(RETRY),  # the main copy as it was: a group again
        lambda: (docs / MAIN).unlink(),  # the main copy gone: GCP alone, no copy
        lambda: (docs / MAIN).write_text(RETRY),  # and back: GCP's rows name it again
    ]
    seen: list[dict[str, object]] = []
    for step in steps:
        step()
        assert build(BuildOptions(docs_dir=docs, out=out)).incremental
        seen.append(_copy_of(out))
        fresh_dir = tmp_path / "fresh"
        fresh = build(BuildOptions(docs_dir=docs, out=fresh_dir, cache_dir=tmp_path / "fresh-cache"))
        assert not fresh.incremental
        assert _rows(out) == _rows(fresh_dir)
        assert (out / MANIFEST_FILE).read_bytes() == (fresh_dir / MANIFEST_FILE).read_bytes()
        assert _terms(out) == _terms(fresh_dir)
        shutil.rmtree(fresh_dir)
        shutil.rmtree(tmp_path / "fresh-cache")
    assert len(regrouped) == len(steps)  # every rebuild into OUT (the fresh builds compare in full)
    # Each step changed the rows of GCP, a file it did not touch (but the first).
    gcp = [found[f"{GCP}#retryconfig/fields"] for found in seen]
    assert gcp == [main_fields, main_fields, None, main_fields, None, main_fields]


def test_an_updated_index_answers_a_query_the_same_every_time(tmp_path: Path) -> None:
    """Every row is in a segment of the full-text indexes (none left to a scan): with the added rows
    scanned, LanceDB summed the parts' scores in the order its threads finished, and a score changed in
    its last digits from one call to the next (a cursor's next page must be the same search's). Two
    stacked updates, each query asked many times from four threads at once."""
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    _edit(docs)
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental
    page = docs / "guides" / "topic-12.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## Ferret games\n\nThe ferret hides a widget.\n")
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental
    index = DocsIndex.open(out)
    queries = [*QUERIES, LONG_QUERY, "topic ferret otter badger heron lynx pangolin a day", "ferret widget"]

    def answer(query: str) -> tuple[tuple[str, float | None], ...]:
        return tuple((hit.chunk_id, hit.score) for hit in index.search(SearchRequest(query, limit=20)).hits)

    with ThreadPoolExecutor(4) as pool:
        for query in queries:
            answers = set(pool.map(answer, [query] * 40))
            assert len(answers) == 1, query


def test_an_update_that_only_adds_files_scores_as_a_full_build(tmp_path: Path) -> None:
    """With no row deleted the segments' statistics add up to a full build's, so the scores are the
    same: the drift comes from deleted rows only, and the added segment counts tokens as LanceDB's own
    index does (pylance's pin: Lance 14 counts "pangolin's" and "rate_limit_exceeded" otherwise, and
    this test fails with its segment)."""
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    (docs / "guides" / "topic-new.md").write_text(
        "# New topic\n\n## Pangolins\n\nA pangolin's scales roll up: the pangolin's widget's status is "
        '"rate_limit_exceeded" | "not_found", twice a day.\n'
    )
    (docs / "guides" / "retrying-ferrets.md").write_text(
        "# Retrying ferrets\n\n## Backoff\n\nThe ferret's client retries with backoff to create a link.\n"
    )
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental
    fresh = _fresh(docs, tmp_path)
    assert _top(out) == _top(fresh)
    updated, full = _scores(out), _scores(fresh)
    assert updated.keys() == full.keys()
    assert all(abs(updated[key] - full[key]) <= 1e-6 * full[key] for key in full), (updated, full)


def _fts_indexes(out: Path) -> dict[str, tuple[str | None, int | None, int | None]]:
    """Per full-text index of ``out``'s table: its first segment's id, its segments, its rows unindexed."""
    table = lancedb.connect(str(out / ".lancedb")).open_table("chunks")
    return {
        index.name: (index.index_uuid, index.num_segments, index.num_unindexed_rows)
        for index in table.list_indices()
        if index.index_type == "FTS"
    }


def _files_of(out: Path, uuid: str | None) -> dict[str, int]:
    """The files of an index segment of ``out``'s table, by name, with their inode."""
    folder = out / ".lancedb" / "chunks.lance" / "_indices" / str(uuid)
    return {path.name: path.stat().st_ino for path in folder.iterdir()}


def test_an_update_indexes_the_added_rows_in_a_segment_of_their_own(tmp_path: Path) -> None:
    """The full-text indexes are not built again: each keeps the full build's segment (the very files,
    linked into the new folder) and gains one over the rows an update added; an update that adds no
    row adds no segment; no row is ever left unindexed."""
    docs = write_docs(tmp_path / "docs", _pages())
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    full = _fts_indexes(out)
    assert sorted(full) == ["body_idx", "crumbs_idx"]
    assert all(segments == 1 and unindexed == 0 for _, segments, unindexed in full.values())
    files = {name: _files_of(out, uuid) for name, (uuid, _, _) in full.items()}
    _edit(docs)
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental
    assert _fts_indexes(out) == {name: (uuid, 2, 0) for name, (uuid, _, _) in full.items()}
    assert {name: _files_of(out, uuid) for name, (uuid, _, _) in full.items()} == files
    (docs / "guides" / "topic-31.md").unlink()  # rows deleted, none added
    assert build(BuildOptions(docs_dir=docs, out=out)).incremental
    assert _fts_indexes(out) == {name: (uuid, 2, 0) for name, (uuid, _, _) in full.items()}
    assert _top(out) == _top(_fresh(docs, tmp_path))
