"""The OCI manifest of an index artifact is a pure function of its inputs, asserted exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.artifact.oci import (
    ARTIFACT_TYPE,
    CONFIG_MEDIA_TYPE,
    LAYER_MEDIA_TYPE,
    Descriptor,
    build_manifest,
    index_annotations,
    parse_manifest,
)
from docs_mcp.errors import ArtifactRejected
from docs_mcp.store.index_manifest import EmbeddingInfo, IndexManifest

GOLDEN = Path(__file__).parent / "fixtures" / "index-manifest.json"
CONFIG = Descriptor(CONFIG_MEDIA_TYPE, "sha256:" + "1" * 64, 463)
LAYER = Descriptor(LAYER_MEDIA_TYPE, "sha256:" + "2" * 64, 40295)
INDEX = IndexManifest(
    format_version=3,
    docs_mcp_version="0.1.0",
    description="Acme Payments docs",
    instructions=None,
    facets={"language": ["go", "python"]},
    embedding=EmbeddingInfo("local", "all-MiniLM-L6-v2-int8", 384),
    chunk_count=70,
    file_count=13,
    content_hash="3" * 64,
    source_commit="4" * 40,
)


def _manifest() -> bytes:
    annotations = index_annotations(
        INDEX,
        content_digest="sha256:" + "5" * 64,
        created="2025-01-02T03:04:05Z",
        source="https://github.com/acme/docs",
    )
    return build_manifest(CONFIG, LAYER, annotations)


def test_the_manifest_matches_the_golden_file_byte_for_byte() -> None:
    # Regenerate after a deliberate change: the golden file is the canonical bytes, pretty-printed.
    assert json.loads(_manifest()) == json.loads(GOLDEN.read_text())
    assert (
        _manifest()
        == json.dumps(json.loads(GOLDEN.read_text()), sort_keys=True, separators=(",", ":")).encode()
    )


def test_the_manifest_round_trips_through_the_parser() -> None:
    artifact = parse_manifest(_manifest(), "test")
    assert (artifact.config, artifact.layer) == (CONFIG, LAYER)
    assert artifact.annotations["org.opencontainers.image.revision"] == "4" * 40


def _image(**changes: object) -> bytes:
    document: dict[str, object] = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {
            "mediaType": "application/vnd.oci.image.config.v1+json",
            "digest": "sha256:" + "6" * 64,
            "size": 2,
        },
        "layers": [
            {
                "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                "digest": "sha256:" + "7" * 64,
                "size": 3,
            }
        ],
    }
    document.update(changes)
    return json.dumps(document).encode()


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        (_image(), "an ordinary container image"),
        (_image(artifactType="application/vnd.cncf.helm.chart.v1"), "application/vnd.cncf.helm.chart"),
        (_image(mediaType="application/vnd.oci.image.index.v1+json"), "image index"),
        (b"not json", "not valid JSON"),
        (b"[1, 2]", "not valid JSON"),
    ],
)
def test_anything_but_a_docs_mcp_index_is_refused_and_named(body: bytes, complaint: str) -> None:
    with pytest.raises(ArtifactRejected, match=complaint):
        parse_manifest(body, "ghcr.io/acme/thing:v1")


def test_an_index_manifest_with_extra_or_odd_layers_is_refused() -> None:
    document = json.loads(_manifest())
    document["layers"].append(document["layers"][0])
    with pytest.raises(ArtifactRejected, match="exactly one layer"):
        parse_manifest(json.dumps(document).encode(), "x")
    document["layers"] = [{**document["layers"][0], "digest": "md5:abc"}]
    with pytest.raises(ArtifactRejected, match="malformed descriptor"):
        parse_manifest(json.dumps(document).encode(), "x")
    document["layers"] = [{**LAYER.to_json(), "mediaType": "application/octet-stream"}]
    with pytest.raises(ArtifactRejected, match="its layer is"):
        parse_manifest(json.dumps(document).encode(), "x")


def test_the_artifact_type_is_docs_mcps_own() -> None:
    assert json.loads(_manifest())["artifactType"] == ARTIFACT_TYPE == "application/vnd.docs-mcp.index.v1"
