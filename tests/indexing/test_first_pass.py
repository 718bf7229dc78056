"""An update's first pass costs what changed (issue 34, ``indexing/first_pass.py``): a page whose stat
is the one the last build recorded is not read, its chunks not decoded, and the index still comes out
as a full build's; the chunk cache gains a segment instead of being written anew."""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import lancedb
import pytest

from docs_mcp.corpus import chunk_cache as chunk_cache_module
from docs_mcp.corpus import known_pages as scan_module
from docs_mcp.corpus.chunk_cache import CHUNK_CACHE_FILE, ChunkCache
from docs_mcp.corpus.scan import DocsFiles
from docs_mcp.entry_file import read_entries
from docs_mcp.errors import Finding
from docs_mcp.indexing import terms
from docs_mcp.indexing.first_pass import LINES_FILE, RECORD_FILE
from docs_mcp.indexing.pipeline import BuildOptions, BuildResult, build
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import FILES, write_docs

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(autouse=True)
def trusted_stats(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages written a moment before a build are read again by the next one (``RACY_MARGIN_NS``): a
    test's pages are that recent, so the margin is taken away (every edit here is a build later)."""
    monkeypatch.setattr(scan_module, "RACY_MARGIN_NS", 0)


def _pages(count: int = 40) -> dict[str, str]:
    pages = dict(FILES)
    for n in range(count):
        pages[f"guides/topic-{n:02d}.md"] = (
            f"# Topic {n}\n\nAn overview of topic {n}.\n\n## Feeding\n\nTopic {n} eats twice a day.\n\n"
            f"## Housing\n\nTopic {n} keeps a pen with a widget.\n"
        )
    return pages


def _rows(out: Path) -> list[dict[str, object]]:
    rows = lancedb.connect(str(out / ".lancedb")).open_table("chunks").to_arrow().to_pylist()
    return sorted(rows, key=lambda row: str(row["id"]))


def _same_as_a_full_build(docs: Path, out: Path, tmp_path: Path, built: BuildResult | None = None) -> None:
    """Rows and manifest (and ``built``'s warnings: known pages' findings) as a fresh full build's."""
    fresh = tmp_path / "fresh"
    result = build(BuildOptions(docs_dir=docs, out=fresh, cache_dir=tmp_path / "fresh-cache"))
    assert not result.incremental
    assert _rows(out) == _rows(fresh)
    assert (out / MANIFEST_FILE).read_bytes() == (fresh / MANIFEST_FILE).read_bytes()
    if built is not None:
        assert built.warnings == result.warnings and built.warnings


def _edit(docs: Path) -> None:
    page = docs / "guides" / "topic-07.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## Grooming\n\nBrush weekly.\n")
    (docs / "guides" / "topic-new.md").write_text("# New topic\n\n## Pangolins\n\nA pangolin rolls up.\n")
    (docs / "guides" / "topic-30.md").unlink()


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The docs files read (pages, manifests, templates), in order: the real reads, counted."""
    read = DocsFiles.read
    seen: list[str] = []

    def counted(self: DocsFiles, path: str, findings: list[Finding], rule: str) -> bytes | None:
        seen.append(path)
        return read(self, path, findings, rule)

    monkeypatch.setattr(DocsFiles, "read", counted)
    return seen


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths of the chunk cache entries decoded (hits only)."""
    get = ChunkCache.get
    seen: list[str] = []

    def counted(self: ChunkCache, key: str) -> object:
        found = get(self, key)
        if found is not None:
            seen.append(found.path)
        return found

    monkeypatch.setattr(ChunkCache, "get", counted)
    return seen


def _pages_read(reads: list[str]) -> set[str]:
    return {path for path in reads if path.endswith(".md")}


def test_an_update_reads_and_decodes_only_the_pages_that_changed(
    tmp_path: Path, reads: list[str], decoded: list[str]
) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    first = build(options)
    assert len(_pages_read(reads)) == first.file_count and (first.cache_dir / RECORD_FILE).is_file()  # type: ignore[operator]
    _edit(docs)
    reads.clear()
    decoded.clear()
    updated = build(options)
    assert updated.incremental and updated.files_rechunked == 2
    assert _pages_read(reads) == {"guides/topic-07.md", "guides/topic-new.md"}
    assert decoded == []  # no unchanged page's chunks were needed
    _same_as_a_full_build(docs, tmp_path / "out", tmp_path, updated)
    reads.clear()
    assert build(options).incremental and _pages_read(reads) == set()  # nothing changed: nothing read


def test_a_page_rewritten_with_its_old_size_and_times_is_read_again(tmp_path: Path, reads: list[str]) -> None:
    """The change time moves on any write and no program sets it back: the stat differs."""
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    build(options)
    page = docs / "guides" / "topic-07.md"
    before = page.stat()
    text = page.read_text(encoding="utf-8")
    with page.open("r+", encoding="utf-8") as handle:  # the same inode, the same size
        handle.write(text.replace("twice", "daily"))
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert page.stat().st_size == before.st_size and page.stat().st_mtime_ns == before.st_mtime_ns
    reads.clear()
    assert build(options).incremental
    assert _pages_read(reads) == {"guides/topic-07.md"}
    _same_as_a_full_build(docs, tmp_path / "out", tmp_path)


def test_a_page_changed_just_before_its_stat_is_read_again_next_time(
    tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within ``RACY_MARGIN_NS`` of the build a page's stat is not recorded: a second write within
    the same tick of a coarse clock would keep it."""
    monkeypatch.setattr(scan_module, "RACY_MARGIN_NS", 3600 * 10**9)
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    first = build(options)
    reads.clear()
    assert build(options).incremental and len(_pages_read(reads)) == first.file_count


def test_another_manifest_makes_the_pass_read_every_page(tmp_path: Path, reads: list[str]) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    first = build(options)
    manifest = docs / "guides" / ".docs-mcp.json"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("}}", '}, "mcpServerInstructions": "x"}'))
    reads.clear()
    build(options)
    assert len(_pages_read(reads)) == first.file_count
    _same_as_a_full_build(docs, tmp_path / "out", tmp_path)


@pytest.mark.parametrize("trial", range(6))
def test_a_damaged_record_reads_every_page_and_builds_as_a_full_build(
    tmp_path: Path, reads: list[str], trial: int
) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    first = build(options)
    assert first.cache_dir is not None
    record = first.cache_dir / (RECORD_FILE if trial < 4 else LINES_FILE)  # the archive, or the rows
    data = bytearray(record.read_bytes())
    rng = random.Random(trial)
    at = rng.randrange(len(data))
    if trial in (3, 5):
        del data[at:]
    else:
        data[at : at + 8] = rng.randbytes(8)
    record.write_bytes(bytes(data))
    _edit(docs)
    reads.clear()
    assert build(options).incremental
    _same_as_a_full_build(docs, tmp_path / "out", tmp_path)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _deltas(cache: Path) -> list[Path]:
    return sorted(cache.glob("chunks.delta-*.entries"))


def test_an_update_adds_a_cache_segment_and_a_full_build_compacts_them(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    cache = build(options).cache_dir
    assert cache is not None and _deltas(cache) == []
    base = _digest(cache / CHUNK_CACHE_FILE)
    _edit(docs)
    assert build(options).incremental
    assert _digest(cache / CHUNK_CACHE_FILE) == base  # the base is not written again
    (delta,) = _deltas(cache)
    found = read_entries(delta, "docs-mcp chunk cache 2")
    assert found is not None and len(found.keys) == 2  # the edited page and the new one
    found.close()
    rebuilt = build(BuildOptions(docs_dir=docs, out=tmp_path / "out", full=True))
    assert not rebuilt.incremental and rebuilt.files_rechunked == 0
    assert _deltas(cache) == []
    compacted = read_entries(cache / CHUNK_CACHE_FILE, "docs-mcp chunk cache 2")
    assert compacted is not None and len(compacted.keys) == rebuilt.file_count  # the stale entry gone
    compacted.close()
    _same_as_a_full_build(docs, tmp_path / "out", tmp_path)


def test_stale_entries_past_their_share_are_compacted_by_an_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chunk_cache_module, "MAX_STALE_SHARE", 0.0)
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    cache = build(options).cache_dir
    assert cache is not None
    _edit(docs)
    assert build(options).incremental and _deltas(cache) == []  # one stale entry is past 0%
    reread = build(BuildOptions(docs_dir=docs, out=tmp_path / "elsewhere", cache_dir=cache))
    assert reread.files_rechunked == 0


def test_a_failed_update_leaves_the_cache_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    cache = build(options).cache_dir
    assert cache is not None
    before = {path.name: _digest(path) for path in cache.iterdir() if path.is_file()}
    _edit(docs)

    def fail(*_args: object) -> None:
        raise RuntimeError("the disk went away")

    with monkeypatch.context() as patch:
        patch.setattr(terms.WordChanges, "apply", fail)
        with pytest.raises(RuntimeError, match="went away"):
            build(options)
    assert {path.name: _digest(path) for path in cache.iterdir() if path.is_file()} == before
    updated = build(options)
    assert updated.incremental and updated.files_rechunked == 2
    _same_as_a_full_build(docs, tmp_path / "out", tmp_path)


def test_a_known_page_whose_cache_entry_is_damaged_is_chunked_again_from_the_page(tmp_path: Path) -> None:
    """A full rebuild reads every known page's chunks when it writes their rows: a damaged entry is
    made again from the page, as a first build would."""
    docs = write_docs(tmp_path / "docs", _pages())
    options = BuildOptions(docs_dir=docs, out=tmp_path / "out")
    first = build(options)
    assert first.cache_dir is not None
    path = first.cache_dir / CHUNK_CACHE_FILE
    data = path.read_bytes()
    at = data.index(b"eats twice a day")
    path.write_bytes(data[:at] + b"eats twice a dax" + data[at + 16 :])
    rebuilt: BuildResult = build(BuildOptions(docs_dir=docs, out=tmp_path / "out", full=True))
    assert rebuilt.cache_damaged == 1 and rebuilt.files_rechunked == 1
    _same_as_a_full_build(docs, tmp_path / "out", tmp_path)
