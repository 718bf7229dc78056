"""Copies of one section (a README's PyPI twin, per-package copies) are found at build, never removed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import lancedb
import pytest

from docs_mcp.corpus.copies import copy_groups
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.columns import COPY_COLUMN, LANCEDB_DIR, TABLE_NAME
from docs_mcp.store.index_manifest import read_manifest, replace_manifest
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)

RETRIES = (
    "# Acme Python Client\n\n## Retries\n\nPass a [RetryConfig](docs/retryconfig.md) to retry failed calls "
    "with exponential backoff: the initial interval, the maximum interval, the exponent and the longest "
    "time to keep trying.\n\n```python\nres = acme.{op}(retries=RetryConfig('backoff'))\n```\n\n"
    "## Pagination\n\nCall next() on a page of {op} results.\n"
)
FIELDS = (
    "# Link\n\n## Fields\n\n| Field | Type | Required | Description |\n| --- | --- | --- | --- |\n"
    "| `id` | str | yes | The link's id. |\n"
)

FILES = {
    "python/README.md": RETRIES.format(op="links.list"),
    # The PyPI twin: absolute links and another operation in its example; still a copy.
    "python/README-PYPI.md": RETRIES.format(op="tags.list").replace(
        "docs/retryconfig.md", "https://github.com/acme/acme-python/blob/main/docs/retryconfig.md"
    ),
    "python/docs/models/link.md": FIELDS,
    "python/packages/azure/docs/models/link.md": FIELDS,
    "python/packages/gcp/docs/models/link.md": FIELDS,
    # Same words under another title: another page, not a copy.
    "python/docs/models/tag.md": FIELDS.replace("# Link", "# Tag"),
}


def test_near_identical_sections_group_with_the_main_copy_first(tmp_path: Path) -> None:
    groups = copy_groups(load_corpus(write_docs(tmp_path / "docs", FILES)).chunks)
    assert groups == [
        [
            "python/README.md#acme-python-client/pagination",
            "python/README-PYPI.md#acme-python-client/pagination",
        ],
        ["python/README.md#acme-python-client/retries", "python/README-PYPI.md#acme-python-client/retries"],
        [
            "python/docs/models/link.md#link/fields",
            "python/packages/azure/docs/models/link.md#link/fields",
            "python/packages/gcp/docs/models/link.md#link/fields",
        ],
    ]


def test_a_packages_readme_under_its_own_title_is_a_copy_of_the_main_one(tmp_path: Path) -> None:
    files = {
        "README.md": RETRIES.format(op="links.list"),
        "packages/azure/README.md": RETRIES.format(op="links.list").replace("Acme Python", "Acme on Azure"),
        "docs/sdks/links/README.md": "# Links\n\n## Retries\n\n" + RETRIES.split("## Retries\n\n")[1],
    }
    groups = copy_groups(load_corpus(write_docs(tmp_path / "docs", files)).chunks)
    assert [
        "README.md#acme-python-client/retries",
        "packages/azure/README.md#acme-on-azure-client/retries",
    ] in groups
    assert not any(any(cid.startswith("docs/sdks/") for cid in group) for group in groups)  # another path


def test_a_packages_own_readme_topic_is_a_copy_however_its_text_differs(tmp_path: Path) -> None:
    azure = (
        "# Acme on Azure Client\n\n## Retries\n\nThe Azure client retries a call that timed out, up to three "
        "times, through its deployment's endpoint (`AZURE_ENDPOINT`).\n\n"
        "```python\nres = azure.chat.complete(retries=RetryConfig('backoff', 500, 60000))\n```\n"
    )
    files = {"README.md": RETRIES.format(op="links.list"), "packages/azure/README.md": azure}
    chunks = load_corpus(write_docs(tmp_path / "docs", files)).chunks
    kinds = {c.id: c.metadata.get("kind") for c in chunks}
    assert kinds["packages/azure/README.md#acme-on-azure-client/retries"] == "topic"
    assert [
        "README.md#acme-python-client/retries",
        "packages/azure/README.md#acme-on-azure-client/retries",
    ] in copy_groups(chunks)


def test_parts_of_one_cut_section_are_not_copies(tmp_path: Path) -> None:
    words = " ".join(f"word{n % 7}" for n in range(3000))  # one section, cut into similar parts
    docs = write_docs(tmp_path / "docs", {"guide.md": f"# Guide\n\n## Long\n\n{words}\n\n{words}\n"})
    chunks = load_corpus(docs).chunks
    assert len(chunks) > 1
    assert copy_groups(chunks) == []


def test_validate_counts_copies(tmp_path: Path) -> None:
    report = validate(write_docs(tmp_path / "docs", FILES))
    assert (report.copy_groups, report.copies) == (3, 4)
    assert "4 sections repeat 3 others" in report.summary()
    assert report.to_json()["copies"] == {"groups": 3, "sections": 4}


def _main_copies(out: Path) -> dict[str, str | None]:
    table = lancedb.connect(str(out / LANCEDB_DIR)).open_table(TABLE_NAME)
    read = table.search().select(["id", COPY_COLUMN]).limit(None).to_arrow()
    return dict(zip(read["id"].to_pylist(), read[COPY_COLUMN].to_pylist(), strict=True))


def test_each_row_names_its_main_copy_and_the_manifest_only_counts_the_groups(tmp_path: Path) -> None:
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", FILES), out=tmp_path / "out"))
    manifest = read_manifest(tmp_path / "out")
    # The manifest is read whole at every open: it holds no chunk ids per copy (issue 34).
    assert (manifest.copy_groups, manifest.copies) == (3, ())
    main = _main_copies(tmp_path / "out")
    assert (
        main["python/README-PYPI.md#acme-python-client/retries"]
        == "python/README.md#acme-python-client/retries"
    )
    assert (
        main["python/README.md#acme-python-client/retries"] == "python/README.md#acme-python-client/retries"
    )
    assert {
        main[f"python/{p}docs/models/link.md#link/fields"] for p in ("", "packages/azure/", "packages/gcp/")
    } == {"python/docs/models/link.md#link/fields"}
    assert main["python/docs/models/tag.md#tag/fields"] is None
    assert sum(value is not None for value in main.values()) == 7  # three groups: 2 + 2 + 3 copies


def _search_shows_one_hit_per_copy_group(index: DocsIndex) -> None:
    hits = index.search(SearchRequest("exponential backoff interval exponent", limit=5)).hits
    twins = {"python/README.md", "python/README-PYPI.md"}
    assert len(hits) == 1 and hits[0].file_path in twins  # the best-ranked of the two
    assert [(v.facet, v.value) for v in hits[0].also_in] == [("copy", (twins - {hits[0].file_path}).pop())]
    twin = index.get("python/README-PYPI.md#acme-python-client/retries")
    assert "tags.list" in (twin.chunks[0].markdown or "")
    fields = [hit.file_path for hit in index.search(SearchRequest("link id field", limit=5)).hits]
    assert sum(path.endswith("models/link.md") for path in fields) == 1  # the packages' copies folded in
    assert "python/docs/models/tag.md" in fields


def test_search_shows_one_hit_per_copy_group_and_every_copy_stays_readable(tmp_path: Path) -> None:
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", FILES), out=tmp_path / "out"))
    _search_shows_one_hit_per_copy_group(DocsIndex.open(tmp_path / "out"))


def test_an_index_that_lists_its_groups_in_the_manifest_folds_them_as_before(tmp_path: Path) -> None:
    """Indexes built before each row named its main copy: the groups are in the manifest's ``copies``."""
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", FILES), out=out))
    groups = copy_groups(load_corpus(tmp_path / "docs").chunks)
    lancedb.connect(str(out / LANCEDB_DIR)).open_table(TABLE_NAME).drop_columns([COPY_COLUMN])
    old = dataclasses.replace(read_manifest(out), copy_groups=0, copies=tuple(tuple(g) for g in groups))
    replace_manifest(out, old)
    assert '"copies"' in (out / "docs-mcp-index.json").read_text()
    _search_shows_one_hit_per_copy_group(DocsIndex.open(out))
