"""``pull``: fetch an index artifact by reference, verify it, and swap it into a folder atomically.

The manifest must be a docs-mcp index of a format this version reads; every blob is checked against
its digest and size while it streams into the content-addressed cache; the layer is unpacked with
every safety check into a private folder beside ``dest``, whose index manifest must equal the
artifact's config, and only then swapped in. An interrupted or refused pull leaves the previous index
untouched and no partial folder behind.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.artifact.blob_cache import BlobCache, default_cache_dir
from docs_mcp.artifact.credentials import Credentials, find_credentials
from docs_mcp.artifact.layer import DEFAULT_MAX_BYTES, unpack
from docs_mcp.artifact.oci import Descriptor, IndexArtifact, parse_manifest
from docs_mcp.artifact.reference import Reference, parse_reference
from docs_mcp.artifact.registry import RegistryClient
from docs_mcp.errors import (
    ArtifactRejected,
    ConfigError,
    IndexCompatibilityError,
    IndexUnavailable,
    ReferenceNotFound,
)
from docs_mcp.limits import loads_json
from docs_mcp.store.columns import LANCEDB_DIR
from docs_mcp.store.index_manifest import MANIFEST_FILE, IndexManifest
from docs_mcp.store.swap import new_staging_dir, swap_in

__all__ = ["PULL_RECORD", "PullResult", "pull", "recorded_digest", "resolve"]

PULL_RECORD = ".docs-mcp-artifact.json"  # beside the index: which artifact it came from
_PULLING = ".pulling-"
_MAX_CONFIG_BYTES = 1 << 20


@dataclass(frozen=True)
class PullResult:
    """What a pull installed. ``downloaded_bytes`` is 0 when the cache (or ``dest``) had it all."""

    reference: Reference  # pinned to ``digest``
    digest: str  # the manifest digest
    path: Path
    manifest: IndexManifest
    layer: Descriptor
    downloaded_bytes: int
    unchanged: bool  # ``dest`` already held this artifact; nothing was written
    seconds: float


def pull(
    reference: str | Reference,
    dest: Path,
    *,
    cache_dir: Path | None = None,
    credentials: Credentials | None = None,
    insecure: bool | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> PullResult:
    """Pull the index at ``reference`` (tag or ``@sha256:`` digest) into ``dest``, replacing any index there.

    Raises:
        ConfigError: a malformed reference, or ``dest`` exists and is not an index.
        ReferenceNotFound, RegistryUnauthorized, RegistryUnreachable: the registry could not serve it.
        ArtifactRejected: not a docs-mcp index of a known format, or an unsafe layer.
        DigestMismatch: a blob's bytes do not match its digest or size.
    """
    started = time.monotonic()
    ref = parse_reference(reference) if isinstance(reference, str) else reference
    dest = Path(os.path.abspath(dest))  # absolute and without `..`: the path people read
    _check_dest(dest)
    client = RegistryClient(ref, find_credentials(ref.registry, credentials), insecure=insecure)
    fetched = client.get_manifest(ref.target)
    artifact = parse_manifest(fetched.body, where=str(ref))
    config = _fetch_config(client, artifact, ref)
    manifest = _read_config(config, ref)
    pinned = ref.pinned(fetched.digest)
    if recorded_digest(dest) == fetched.digest:
        return PullResult(pinned, fetched.digest, dest, manifest, artifact.layer, 0, True, _since(started))
    cache = BlobCache(cache_dir or default_cache_dir())
    downloaded = 0
    if not cache.holds(artifact.layer):
        cache.store(artifact.layer, lambda write: client.fetch_blob(artifact.layer, write))
        downloaded = artifact.layer.size
    _install(cache.blob_path(artifact.layer.digest), dest, config, pinned, artifact.layer, max_bytes)
    return PullResult(
        pinned, fetched.digest, dest, manifest, artifact.layer, downloaded, False, _since(started)
    )


def _check_dest(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or (any(dest.iterdir()) and not (dest / MANIFEST_FILE).exists())):
        raise ConfigError(
            f"{dest} exists and is not a docs-mcp index; refusing to replace it. "
            "Choose an empty or new folder"
        )


def _fetch_config(client: RegistryClient, artifact: IndexArtifact, ref: Reference) -> bytes:
    if artifact.config.size > _MAX_CONFIG_BYTES:
        raise ArtifactRejected(f"{ref}: its config blob of {artifact.config.size} bytes is too large")
    chunks: list[bytes] = []
    client.fetch_blob(artifact.config, chunks.append)
    return b"".join(chunks)


def _read_config(config: bytes, ref: Reference) -> IndexManifest:
    try:
        return IndexManifest.from_json(config.decode("utf-8"), where=f"{ref} (its index manifest)")
    except IndexCompatibilityError as error:
        raise ArtifactRejected(
            f"{error}. Refusing it: publish it again from a build of this docs-mcp, or upgrade docs-mcp"
        ) from error
    except IndexUnavailable as error:  # corrupt: malformed, nested too deep, fields of the wrong type
        raise ArtifactRejected(
            f"{ref}: its index manifest (the config blob) is not one docs-mcp wrote ({error.__cause__}); "
            "refusing it: publish it again with docs-mcp publish"
        ) from error
    except UnicodeDecodeError as error:
        raise ArtifactRejected(f"{ref}: its index manifest is not UTF-8 text") from error


def recorded_digest(dest: Path, key: str = "digest") -> str | None:
    """The manifest digest (or, with ``key="layer"``, the layer's) recorded by the pull that wrote
    ``dest``, if any."""
    try:
        return str(loads_json((dest / PULL_RECORD).read_text(encoding="utf-8"))[key])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _install(
    blob: Path, dest: Path, config: bytes, pinned: Reference, layer: Descriptor, max_bytes: int
) -> None:
    """Unpack ``blob`` beside ``dest``, check it is the index ``config`` describes, swap it in."""
    staging = new_staging_dir(dest, _PULLING)
    try:
        unpack(blob, staging, max_bytes=max_bytes)
        manifest_file = staging / MANIFEST_FILE
        if not manifest_file.is_file() or not (staging / LANCEDB_DIR).is_dir():
            raise ArtifactRejected(f"{pinned}: the layer holds no index ({MANIFEST_FILE} and {LANCEDB_DIR}/)")
        if manifest_file.read_bytes() != config:
            raise ArtifactRejected(
                f"{pinned}: the index manifest in the layer differs from the artifact's config"
            )
        record = {"reference": str(pinned), "digest": pinned.digest, "layer": layer.digest}
        (staging / PULL_RECORD).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        swap_in(staging, dest)  # `staging` now holds the previous index, removed below
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _since(started: float) -> float:
    return time.monotonic() - started


def resolve(
    reference: str | Reference,
    *,
    credentials: Credentials | None = None,
    insecure: bool | None = None,
) -> str:
    """The manifest digest ``reference`` points at now (a cheap ``HEAD``): what a refresh loop polls.

    Raises ``ReferenceNotFound`` when the tag does not exist, or another ``RegistryError``.
    """
    ref = parse_reference(reference) if isinstance(reference, str) else reference
    client = RegistryClient(ref, find_credentials(ref.registry, credentials), insecure=insecure)
    digest = client.manifest_digest(ref.target)
    if digest is None:
        raise ReferenceNotFound(f"{ref.registry}/{ref.repository} has no manifest {ref.target}")
    return digest
