"""Issue 34: a build streams its corpus (files chunked a window at a time, set aside, rows written
batch by batch, copies read back a few at a time), so its memory is set by the batch, not the
corpus. The index does not depend on those sizes: a build with batches of one row, windows of one
file and copies compared one section at a time is the same index as the default build, and both
hold what the corpus loaded whole says (facets, copies, example, URLs)."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import lancedb
import pytest

from docs_mcp.corpus import copies, scan
from docs_mcp.corpus.copies import copy_groups
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.indexing.pipeline import BuildOptions, BuildResult, build
from docs_mcp.store.columns import COPY_COLUMN, URL_COLUMN
from docs_mcp.store.index_manifest import MANIFEST_FILE, pick_example
from testkit.index_fixtures import FILES, write_docs

pytestmark = pytest.mark.timeout(300)

# Copies (a README's PyPI twin, per-package pages) beside the default docs: the cross-file steps.
FIELDS = (
    "# Link\n\n## Fields\n\n| Field | Type |\n| --- | --- |\n| `id` | str |\n\nThe link's id and its kind.\n"
)
README = "# Acme\n\n## Retries\n\nRetry failed calls with exponential backoff and jitter.\n"
COPIES = {
    "python/README.md": README,
    "python/README-PYPI.md": README,
    "python/docs/models/link.md": FIELDS,
    "python/packages/azure/docs/models/link.md": FIELDS,
    "python/packages/gcp/docs/models/link.md": FIELDS,
}


def _rows(out: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = (
        lancedb.connect(str(out / ".lancedb")).open_table("chunks").to_arrow().to_pylist()
    )
    return rows


def _tiny_build(monkeypatch: pytest.MonkeyPatch, options: BuildOptions) -> BuildResult:
    with monkeypatch.context() as patched:
        patched.setattr(scan, "WINDOW_BYTES", 1)  # every file its own window
        patched.setattr(copies, "FETCH_SECTIONS", 1)  # every block of copies read back alone
        return build(dataclasses.replace(options, batch_rows=1))


def _docs(tmp_path: Path, kind: str, request: pytest.FixtureRequest | None = None) -> Path:
    if kind == "site" and request is not None:  # a site with page URLs: the URL column
        evaldata: Path = request.getfixturevalue("evaldata_dir")
        shutil.copytree(evaldata / "sites" / "httpx", tmp_path / "site")
        return tmp_path / "site" / "docs"
    return write_docs(tmp_path / "docs", {**FILES, **COPIES})


@pytest.mark.parametrize(("kind", "provider"), [("sdk", "none"), ("sdk", "hash"), ("site", "hash")])
def test_a_build_in_batches_of_one_row_is_the_same_index_as_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, kind: str, provider: str
) -> None:
    docs = _docs(tmp_path, kind, request)
    default = build(
        BuildOptions(
            docs_dir=docs, out=tmp_path / "default", cache_dir=tmp_path / "c1", embedding_provider=provider
        )
    )
    tiny = _tiny_build(
        monkeypatch,
        BuildOptions(
            docs_dir=docs, out=tmp_path / "tiny", cache_dir=tmp_path / "c2", embedding_provider=provider
        ),
    )
    assert _rows(tmp_path / "tiny") == _rows(tmp_path / "default")  # same rows, same order
    assert (tmp_path / "tiny" / MANIFEST_FILE).read_bytes() == (
        tmp_path / "default" / MANIFEST_FILE
    ).read_bytes()
    assert (tiny.chunk_count, tiny.file_count) == (default.chunk_count, default.file_count)

    # What the build used to compute from the corpus held whole, it now gathers file by file.
    corpus = load_corpus(docs)
    chunks = corpus.chunks
    manifest = default.manifest
    assert manifest.chunk_count == len(chunks) and manifest.file_count == len(corpus.files)
    assert manifest.content_hash == corpus.content_hash
    groups = copy_groups(chunks)  # each copy's row names its group's main copy; the manifest counts
    assert manifest.copy_groups == len(groups)
    main_copies = {cid: group[0] for group in groups for cid in group}
    assert manifest.examples == pick_example((c.id, c.heading, c.breadcrumb) for c in chunks)
    values: dict[str, set[str]] = {}
    for chunk in chunks:
        for key, value in chunk.metadata.items():
            values.setdefault(key, set()).add(value)
    assert manifest.facets == {key: sorted(found) for key, found in sorted(values.items())}
    rows = _rows(tmp_path / "default")
    assert [row["id"] for row in rows] == [chunk.id for chunk in chunks]
    assert [row[COPY_COLUMN] for row in rows] == [main_copies.get(chunk.id) for chunk in chunks]
    if kind == "sdk":
        assert manifest.copy_groups, "the fixture has copies"
    else:
        assert corpus.urls and [row[URL_COLUMN] for row in rows] == [corpus.urls.get(c.id) for c in chunks]


def test_a_rebuild_from_the_caches_in_batches_of_one_row_is_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(tmp_path, "sdk")
    options = BuildOptions(
        docs_dir=docs, out=tmp_path / "out", cache_dir=tmp_path / "cache", embedding_provider="hash"
    )
    first = build(options)
    again = _tiny_build(monkeypatch, options)  # every file, row and vector from the caches
    assert again.files_rechunked == 0 and again.cache_misses == 0
    assert again.manifest == first.manifest
    build(
        BuildOptions(
            docs_dir=docs, out=tmp_path / "fresh", cache_dir=tmp_path / "c2", embedding_provider="hash"
        )
    )
    assert _rows(tmp_path / "out") == _rows(tmp_path / "fresh")


def test_the_walk_in_windows_of_one_file_with_helpers_loads_the_same_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = _docs(tmp_path, "sdk")
    whole = load_corpus(docs, workers=1)
    monkeypatch.setattr(scan, "WINDOW_BYTES", 1)
    windowed = load_corpus(docs, workers=2)  # a helper process per window
    assert windowed == whole
