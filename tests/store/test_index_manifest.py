"""The index manifest's taxonomy key: written by build, optional within the format version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.errors import IndexUnavailable
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.store.index_manifest import FORMAT_VERSION, MANIFEST_FILE, FacetTaxonomy, IndexManifest
from testkit.index_fixtures import SDK_FILES, write_docs

pytestmark = pytest.mark.timeout(60)


def _manifest(**extra: object) -> dict[str, object]:
    return {
        "format_version": FORMAT_VERSION,
        "docs_mcp_version": "0",
        "description": None,
        "instructions": None,
        "facets": {"language": ["go", "python"]},
        "embedding": None,
        "chunk_count": 2,
        "file_count": 2,
        "content_hash": "x",
        "source_commit": None,
        **extra,
    }


def test_the_taxonomy_round_trips() -> None:
    taxonomy = {"language": FacetTaxonomy(True, {"go": ["golang"]}, ["python"])}
    manifest = IndexManifest.from_json(json.dumps(_manifest()))
    written = IndexManifest(**{**manifest.__dict__, "taxonomy": taxonomy})
    assert IndexManifest.from_json(written.to_json()) == written


def test_a_manifest_without_the_key_reads_as_no_folding_aliases_or_resources() -> None:
    assert IndexManifest.from_json(json.dumps(_manifest())).taxonomy == {}


@pytest.mark.parametrize(
    "taxonomy",
    [
        [],
        {"language": []},
        {"language": {"vector_collapse": "yes"}},
        {"language": {"aliases": {"go": "golang"}}},
        {"language": {"resources": [1]}},
    ],
)
def test_a_malformed_taxonomy_makes_the_index_unavailable(taxonomy: object) -> None:
    with pytest.raises(IndexUnavailable, match="corrupt"):
        IndexManifest.from_json(json.dumps(_manifest(taxonomy=taxonomy)))


def test_build_records_what_the_taxonomy_declares_for_values_the_index_holds(tmp_path: Path) -> None:
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", SDK_FILES), out=tmp_path / "out"))
    data = json.loads((tmp_path / "out" / MANIFEST_FILE).read_text())
    assert data["format_version"] == FORMAT_VERSION
    assert data["taxonomy"] == {
        "language": {"vector_collapse": True, "aliases": {"java": ["jvm"]}, "resources": []},
        "scope": {"vector_collapse": False, "aliases": {}, "resources": ["global-guide"]},
    }


def test_the_schema_examples_round_trip_and_are_optional() -> None:
    manifest = IndexManifest.from_json(json.dumps(_manifest()))
    assert manifest.examples is None  # an index built before they were recorded
    written = IndexManifest(
        **{**manifest.__dict__, "examples": {"query": "Create a link", "chunk_id": "a.md#x"}}
    )
    assert IndexManifest.from_json(written.to_json()) == written


@pytest.mark.parametrize("examples", [["a"], {"query": 3}])
def test_malformed_schema_examples_make_the_index_unavailable(examples: object) -> None:
    with pytest.raises(IndexUnavailable, match="examples"):
        IndexManifest.from_json(json.dumps(_manifest(examples=examples)))


def test_build_records_the_example_an_opened_index_picks(tmp_path: Path) -> None:
    from docs_mcp.search.index import DocsIndex

    write_docs(tmp_path / "docs", SDK_FILES)
    result = build(BuildOptions(docs_dir=tmp_path / "docs", out=tmp_path / "out"))
    heading, chunk_id = DocsIndex.open(tmp_path / "out").example_section()
    assert result.manifest.examples == {"query": heading, "chunk_id": chunk_id} and chunk_id
