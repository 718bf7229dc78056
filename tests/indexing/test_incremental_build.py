"""A rebuild into the same OUT reuses what did not change (chunked files, rows) and gives what a full
build gives: the same rows, the same manifest, the same search answers."""

from __future__ import annotations

import json
from pathlib import Path

import lancedb
import pytest

from docs_mcp.corpus.chunk_cache import CHUNK_CACHE_FILE
from docs_mcp.indexing.pipeline import BuildOptions, BuildResult, build
from docs_mcp.indexing.row_cache import ROW_CACHE_FILE
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)

QUERIES = ["retry with backoff", "create a link", "cursor next page", "timeout", "widget"]


def _rows(out: Path) -> list[dict[str, object]]:
    return lancedb.connect(str(out / ".lancedb")).open_table("chunks").to_arrow().to_pylist()


def _answers(out: Path) -> list[list[tuple[str, float]]]:
    index = DocsIndex.open(out)
    return [[(hit.chunk_id, hit.score) for hit in index.search(SearchRequest(q)).hits] for q in QUERIES]


def _same_as_a_full_build(docs: Path, rebuilt: Path, fresh: Path, **options: object) -> BuildResult:
    full = build(BuildOptions(docs_dir=docs, out=fresh, cache_dir=fresh.parent / "fresh-cache", **options))  # type: ignore[arg-type]
    assert full.files_rechunked == full.file_count  # its own cache folder: nothing to reuse
    assert _rows(rebuilt) == _rows(fresh)  # the same rows in the same order
    assert (rebuilt / MANIFEST_FILE).read_bytes() == (fresh / MANIFEST_FILE).read_bytes()
    assert _answers(rebuilt) == _answers(fresh)
    return full


@pytest.mark.parametrize("provider", ["none", "hash"])
def test_a_rebuild_after_one_edit_rechunks_one_file_and_equals_a_full_build(
    tmp_path: Path, provider: str
) -> None:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out"
    first = build(BuildOptions(docs_dir=docs, out=out, embedding_provider=provider))
    assert first.files_rechunked == first.file_count
    assert first.cache_dir is not None and not first.cache_dir.is_relative_to(out)
    assert (first.cache_dir / CHUNK_CACHE_FILE).is_file()
    assert (first.cache_dir / ROW_CACHE_FILE).is_file()
    unchanged = build(BuildOptions(docs_dir=docs, out=out, embedding_provider=provider))
    assert unchanged.files_rechunked == 0
    page = docs / "guides" / "retries.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n## Widget limits\n\nA widget retries twice.\n")
    edited = build(BuildOptions(docs_dir=docs, out=out, embedding_provider=provider))
    assert edited.files_rechunked == 1
    assert edited.chunk_count == first.chunk_count + 1
    _same_as_a_full_build(docs, out, tmp_path / "fresh", embedding_provider=provider)


def test_added_removed_files_and_a_changed_manifest_give_a_full_builds_result(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    (docs / "guides" / "pagination.md").unlink()
    write_docs(docs, {"python/widgets.md": "# Widgets\n\n## Widget retries\n\nWidgets retry in Python.\n"})
    # Another facet value for every file under python/: their settings, so their keys, change.
    (docs / "python" / ".docs-mcp.json").write_text(
        json.dumps({"version": "1", "metadata": {"language": "python", "scope": "global-guide"}})
    )
    rebuilt = build(BuildOptions(docs_dir=docs, out=out))
    assert rebuilt.files_rechunked == 2  # python/links.md (settings) and python/widgets.md (new)
    _same_as_a_full_build(docs, out, tmp_path / "fresh")


def test_a_damaged_cache_is_ignored_and_everything_is_made_again(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out"
    cache = build(BuildOptions(docs_dir=docs, out=out)).cache_dir
    assert cache is not None
    for name in (CHUNK_CACHE_FILE, ROW_CACHE_FILE):
        (cache / name).write_bytes(b"not a cache")
    rebuilt = build(BuildOptions(docs_dir=docs, out=out))
    assert rebuilt.files_rechunked == rebuilt.file_count
    _same_as_a_full_build(docs, out, tmp_path / "fresh")


def test_a_shared_cache_folder_serves_two_outs(tmp_path: Path) -> None:
    """Rows recorded for another index are reused only where path and content agree."""
    docs = write_docs(tmp_path / "docs")
    cache = tmp_path / "cache"
    build(BuildOptions(docs_dir=docs, out=tmp_path / "a", cache_dir=cache))
    page = docs / "python" / "links.md"
    page.write_text(page.read_text(encoding="utf-8").replace("shorten", "shrink"), encoding="utf-8")
    second = build(BuildOptions(docs_dir=docs, out=tmp_path / "b", cache_dir=cache))
    assert second.files_rechunked == 1
    _same_as_a_full_build(docs, tmp_path / "b", tmp_path / "fresh")


def test_a_site_whose_base_url_changes_gets_new_urls_in_every_row(tmp_path: Path) -> None:
    """The URL column comes from the site's config, not the page: a new base URL with unchanged pages
    reuses the chunked files and still writes what a full build writes."""
    root = write_docs(
        tmp_path / "site",
        {
            "mkdocs.yml": "site_name: Acme\nsite_url: https://acme.dev/\n",
            "docs/index.md": "# Acme\n\nWelcome text.\n\n## Get Started\n\nSteps here.\n",
            "docs/guide/setup.md": "# Setup\n\n## Install it\n\nRun pip.\n",
        },
    )
    docs, out = root / "docs", tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    assert any(str(row["url"]).startswith("https://acme.dev/") for row in _rows(out))
    (root / "mkdocs.yml").write_text("site_name: Acme\nsite_url: https://docs.acme.dev/v2/\n")
    rebuilt = build(BuildOptions(docs_dir=docs, out=out))
    assert rebuilt.files_rechunked == 0
    assert all(str(row["url"]).startswith("https://docs.acme.dev/v2/") for row in _rows(out))
    _same_as_a_full_build(docs, out, tmp_path / "fresh")
