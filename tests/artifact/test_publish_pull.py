"""Publish and pull against a real registry (Debian's docker-registry on 127.0.0.1): round trips,
content addressing, the cache, and what other OCI tools see."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from registry_support import Registry, require_tool

from docs_mcp.artifact import publish, pull
from docs_mcp.artifact.oci import ARTIFACT_TYPE
from docs_mcp.errors import ConfigError
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.index_manifest import read_manifest

pytestmark = pytest.mark.timeout(120)
QUERIES = ["retry a failed payment", "webhook signature", "paginate list results", "authentication token"]


def _results(index: DocsIndex) -> list[list[tuple[str, float]]]:
    return [
        [(h.chunk_id, h.score) for h in index.search(SearchRequest(query=q, limit=5)).hits] for q in QUERIES
    ]


def test_a_published_index_pulls_back_and_answers_exactly_like_the_local_one(
    registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    published = publish(index_a, registry.ref("round/trip", "v1"), cache_dir=tmp_path / "cache")
    assert str(published.reference) == f"{registry.ref('round/trip', 'v1')}@{published.digest}"
    pulled = pull(f"oci://{registry.ref('round/trip', 'v1')}", tmp_path / "pulled", cache_dir=tmp_path / "c2")
    assert pulled.digest == published.digest
    assert pulled.manifest == read_manifest(index_a)
    assert pulled.downloaded_bytes == published.layer.size
    assert _results(DocsIndex.open(pulled.path)) == _results(DocsIndex.open(index_a))


def test_publishing_the_same_index_again_uploads_nothing_and_gives_the_same_digest(
    registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    first = publish(index_a, registry.ref("same/index", "one"), cache_dir=tmp_path)
    again = publish(index_a, registry.ref("same/index", "two"), tags=["three"], cache_dir=tmp_path)
    assert first.uploaded_bytes > 0 and not first.reused
    assert again.digest == first.digest and again.layer == first.layer
    assert again.uploaded_bytes == 0 and again.reused
    assert again.tags == ["two", "three"]
    for tag in ("one", "two", "three"):
        assert (
            pull(registry.ref("same/index", tag), tmp_path / tag, cache_dir=tmp_path).digest == first.digest
        )


def test_two_builds_of_the_same_docs_publish_as_one_artifact(
    registry: Registry, examples_docs: Path, tmp_path: Path
) -> None:
    outs = [tmp_path / "build-1", tmp_path / "build-2"]
    for out in outs:
        build(BuildOptions(docs_dir=examples_docs, out=out))
    first = publish(outs[0], registry.ref("two/builds", "first"), cache_dir=tmp_path)
    second = publish(outs[1], registry.ref("two/builds", "second"), cache_dir=tmp_path)
    assert second.content_digest == first.content_digest
    assert (second.digest, second.layer.digest) == (first.digest, first.layer.digest)
    assert second.uploaded_bytes == 0


def test_a_dry_run_packs_the_same_layer_and_manifest_every_time(index_a: Path, tmp_path: Path) -> None:
    env = {"SOURCE_DATE_EPOCH": "1700000000"}
    runs = [
        publish(index_a, "registry.example.com/docs:v1", dry_run=True, cache_dir=tmp_path, env=env)
        for _ in range(2)
    ]
    assert runs[0].oci_manifest == runs[1].oci_manifest and runs[0].digest == runs[1].digest
    document = json.loads(runs[0].oci_manifest)
    assert document["annotations"]["org.opencontainers.image.created"] == "2023-11-14T22:13:20Z"
    assert runs[0].uploaded_bytes == 0


def test_a_digest_the_cache_holds_is_not_downloaded_again(
    registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    published = publish(index_a, registry.ref("cached/index"), cache_dir=tmp_path / "publisher")
    cache = tmp_path / "cache"
    first = pull(registry.ref("cached/index"), tmp_path / "one", cache_dir=cache)
    by_digest = f"{registry.host}/cached/index@{published.digest}"
    second = pull(by_digest, tmp_path / "two", cache_dir=cache)
    again = pull(registry.ref("cached/index"), tmp_path / "one", cache_dir=cache)
    assert first.downloaded_bytes == published.layer.size and not first.unchanged
    assert second.downloaded_bytes == 0 and not second.unchanged and second.digest == published.digest
    assert again.unchanged and again.downloaded_bytes == 0
    assert DocsIndex.open(tmp_path / "two").identity == DocsIndex.open(index_a).identity


def test_a_pull_replaces_the_previous_index_in_the_folder(
    registry: Registry, index_a: Path, index_b: Path, tmp_path: Path
) -> None:
    publish(index_a, registry.ref("replace/index", "a"), cache_dir=tmp_path)
    publish(index_b, registry.ref("replace/index", "b"), cache_dir=tmp_path)
    dest = tmp_path / "dest"
    pull(registry.ref("replace/index", "a"), dest, cache_dir=tmp_path)
    pulled = pull(registry.ref("replace/index", "b"), dest, cache_dir=tmp_path)
    assert DocsIndex.open(dest).identity == DocsIndex.open(index_b).identity == pulled.manifest.identity
    assert [p.name for p in dest.parent.iterdir() if p.name.startswith(".dest")] == []


def test_skopeo_sees_the_manifest_as_published(registry: Registry, index_a: Path, tmp_path: Path) -> None:
    skopeo = require_tool("skopeo")
    published = publish(index_a, registry.ref("skopeo/index", "v1"), cache_dir=tmp_path)
    shown = subprocess.run(
        [skopeo, "inspect", "--raw", "--tls-verify=false", f"docker://{registry.ref('skopeo/index', 'v1')}"],
        capture_output=True,
        timeout=60,
        check=True,
    ).stdout
    assert shown == published.oci_manifest
    document = json.loads(shown)
    assert document["artifactType"] == ARTIFACT_TYPE
    assert document["layers"][0]["digest"] == published.layer.digest
    assert document["annotations"]["io.docs-mcp.index.chunk-count"] == str(published.manifest.chunk_count)


def test_publishing_a_folder_that_is_not_an_index_is_refused_before_any_upload(
    registry: Registry, tmp_path: Path
) -> None:
    from docs_mcp.errors import IndexUnavailable

    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexUnavailable, match=r"docs-mcp-index\.json is missing"):
        publish(tmp_path / "empty", registry.ref("nothing/here"), cache_dir=tmp_path)
    shutil.rmtree(tmp_path / "empty")


@pytest.mark.parametrize("epoch", ["\u00b2", "-5", "1.5", "9" * 30, "9" * 5000, "253402300800", "soon"])
def test_a_source_date_epoch_that_is_no_unix_time_is_a_config_error_naming_it(
    index_a: Path, tmp_path: Path, epoch: str
) -> None:
    """A superscript digit passed ``isdigit()`` and failed ``int()``; 10**30 overflowed time_t; 5,000
    digits passed int()'s limit: each was a traceback out of publish, after the registry was asked."""
    with pytest.raises(ConfigError) as refused:
        publish(index_a, "registry.example.com/docs:v1", dry_run=True, cache_dir=tmp_path,
                env={"SOURCE_DATE_EPOCH": epoch})  # fmt: skip
    message = str(refused.value)
    assert message.startswith("SOURCE_DATE_EPOCH=") and "not a Unix time" in message and len(message) < 200


def test_the_last_second_rfc_3339_can_say_is_a_source_date_epoch(index_a: Path, tmp_path: Path) -> None:
    run = publish(index_a, "registry.example.com/docs:v1", dry_run=True, cache_dir=tmp_path,
                  env={"SOURCE_DATE_EPOCH": "253402300799"})  # fmt: skip
    assert json.loads(run.oci_manifest)["annotations"]["org.opencontainers.image.created"] == (
        "9999-12-31T23:59:59Z"
    )
