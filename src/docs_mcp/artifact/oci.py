"""The docs-mcp index artifact as OCI sees it: media types, annotations and the manifest (pure functions).

An index is published as an OCI 1.1 image manifest with its own ``artifactType``::

    manifest  application/vnd.oci.image.manifest.v1+json, artifactType application/vnd.docs-mcp.index.v1
    ├── config  application/vnd.docs-mcp.index.config.v1+json   the index manifest (docs-mcp-index.json)
    └── layer   application/vnd.docs-mcp.index.layer.v1.tar+gzip  the index folder, packed reproducibly

The manifest is serialised canonically (sorted keys, no spaces), so the same inputs give the same digest.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp.errors import ArtifactRejected
from docs_mcp.limits import loads_json
from docs_mcp.store.index_manifest import IndexManifest

ARTIFACT_TYPE = "application/vnd.docs-mcp.index.v1"
CONFIG_MEDIA_TYPE = "application/vnd.docs-mcp.index.config.v1+json"
LAYER_MEDIA_TYPE = "application/vnd.docs-mcp.index.layer.v1.tar+gzip"
MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
_IMAGE_INDEX_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
)
# What a pull asks the registry for: an index artifact, or anything else to be named in the refusal.
ACCEPTED_MANIFEST_TYPES = (
    MANIFEST_MEDIA_TYPE,
    "application/vnd.docker.distribution.manifest.v2+json",
    *_IMAGE_INDEX_TYPES,
)
_IMAGE_CONFIG_TYPES = (
    "application/vnd.oci.image.config.v1+json",
    "application/vnd.docker.container.image.v1+json",
)

ANNOTATION_PREFIX = "io.docs-mcp.index."
# Annotations with the index's own facts, beside the standard org.opencontainers.image.* ones.
FORMAT_VERSION_ANNOTATION = ANNOTATION_PREFIX + "format-version"
CONTENT_DIGEST_ANNOTATION = ANNOTATION_PREFIX + "content-digest"


_SHA256 = re.compile(r"sha256:[a-f0-9]{64}")


def sha256_digest(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Descriptor:
    """An OCI content descriptor: what a blob is, its digest and its size in bytes."""

    media_type: str
    digest: str
    size: int

    def to_json(self) -> dict[str, Any]:
        return {"mediaType": self.media_type, "digest": self.digest, "size": self.size}


@dataclass(frozen=True)
class IndexArtifact:
    """A docs-mcp index manifest as read from a registry: its config, its one layer, its annotations."""

    config: Descriptor
    layer: Descriptor
    annotations: dict[str, str]


def index_annotations(
    manifest: IndexManifest,
    *,
    content_digest: str,
    created: str,
    source: str | None = None,
) -> dict[str, str]:
    """The manifest annotations: the standard ``org.opencontainers.image.*`` keys and the index's own.

    ``created`` is an RFC 3339 time; ``source`` the URL of the docs' repository, when known.
    """
    annotations = {
        "org.opencontainers.image.created": created,
        "org.opencontainers.image.title": manifest.description or "docs-mcp index",
        # The index identity (content, format, embedding and docs-mcp version, hashed): what a
        # reader needs to tell two indexes apart.
        "org.opencontainers.image.version": manifest.identity,
        FORMAT_VERSION_ANNOTATION: str(manifest.format_version),
        ANNOTATION_PREFIX + "docs-mcp-version": manifest.docs_mcp_version,
        ANNOTATION_PREFIX + "chunk-count": str(manifest.chunk_count),
        ANNOTATION_PREFIX + "file-count": str(manifest.file_count),
        ANNOTATION_PREFIX + "content-hash": manifest.content_hash,
        CONTENT_DIGEST_ANNOTATION: content_digest,
    }
    if manifest.source_commit:
        annotations["org.opencontainers.image.revision"] = manifest.source_commit
    if source:
        annotations["org.opencontainers.image.source"] = source
    if manifest.embedding is not None:
        annotations[ANNOTATION_PREFIX + "embedding.provider"] = manifest.embedding.provider
        annotations[ANNOTATION_PREFIX + "embedding.model"] = manifest.embedding.model
        annotations[ANNOTATION_PREFIX + "embedding.dimensions"] = str(manifest.embedding.dimensions)
    return annotations


def build_manifest(config: Descriptor, layer: Descriptor, annotations: Mapping[str, str]) -> bytes:
    """The OCI image manifest of an index artifact, canonically serialised (its digest is stable)."""
    document = {
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "artifactType": ARTIFACT_TYPE,
        "config": config.to_json(),
        "layers": [layer.to_json()],
        "annotations": dict(sorted(annotations.items())),
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def parse_manifest(body: bytes, where: str) -> IndexArtifact:
    """Read an index artifact's manifest. ``where`` names it in messages.

    Raises ``ArtifactRejected`` for anything but a docs-mcp index manifest: an image, an image index,
    another artifact type, a missing or extra layer, or malformed JSON.
    """
    try:
        document = loads_json(body.decode("utf-8"))  # depth- and number-bounded: it comes from outside
        if not isinstance(document, dict):
            raise TypeError("not a JSON object")
    except (ValueError, TypeError) as error:
        raise ArtifactRejected(f"{where}: the manifest is not valid JSON ({error})") from error
    media_type = document.get("mediaType")
    artifact_type = document.get("artifactType")
    found_config = document.get("config")
    config: dict[str, Any] = found_config if isinstance(found_config, dict) else {}
    if media_type in _IMAGE_INDEX_TYPES:
        raise ArtifactRejected(
            f"{where} is an image index (a multi-platform image), not a docs-mcp index; "
            "point at an artifact made by docs-mcp publish"
        )
    if artifact_type != ARTIFACT_TYPE or config.get("mediaType") != CONFIG_MEDIA_TYPE:
        kind = (
            "an ordinary container image"
            if config.get("mediaType") in _IMAGE_CONFIG_TYPES and not artifact_type
            else f"an artifact of type {artifact_type or config.get('mediaType') or 'unknown'!r}"
        )
        raise ArtifactRejected(
            f"{where} is {kind}, not a docs-mcp index ({ARTIFACT_TYPE}); "
            "point at an artifact made by docs-mcp publish"
        )
    layers = document.get("layers")
    if not isinstance(layers, list) or len(layers) != 1:
        raise ArtifactRejected(f"{where}: a docs-mcp index has exactly one layer")
    layer = _descriptor(layers[0], where)
    if layer.media_type != LAYER_MEDIA_TYPE:
        raise ArtifactRejected(f"{where}: its layer is {layer.media_type!r}, not {LAYER_MEDIA_TYPE!r}")
    annotations = document.get("annotations") or {}
    return IndexArtifact(
        config=_descriptor(config, where),
        layer=layer,
        annotations={str(k): str(v) for k, v in annotations.items()} if isinstance(annotations, dict) else {},
    )


def _descriptor(value: object, where: str) -> Descriptor:
    if not isinstance(value, dict):
        raise ArtifactRejected(f"{where}: a descriptor is not a JSON object")
    digest, size, media_type = value.get("digest"), value.get("size"), value.get("mediaType")
    if (
        not isinstance(digest, str)
        or not _SHA256.fullmatch(digest)
        or not isinstance(size, int)
        or size < 0
        or not isinstance(media_type, str)
    ):
        raise ArtifactRejected(f"{where}: malformed descriptor {value!r} (sha256 digests only)")
    return Descriptor(media_type, digest, size)
