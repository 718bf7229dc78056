"""``publish``: push a built index folder to an OCI registry as a docs-mcp index artifact.

Content-addressed (see ``docs_mcp.artifact.content``): when the repository already holds an artifact
with the same content digest, its manifest is reused as is, no blob is uploaded, and only the tags
move. Otherwise the folder is packed reproducibly, each blob the registry lacks is uploaded, and the
manifest is stored under every tag and under the content tag.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from docs_mcp.artifact.blob_cache import default_cache_dir
from docs_mcp.artifact.content import content_digest, content_tag
from docs_mcp.artifact.credentials import Credentials, find_credentials
from docs_mcp.artifact.layer import pack
from docs_mcp.artifact.oci import (
    CONFIG_MEDIA_TYPE,
    CONTENT_DIGEST_ANNOTATION,
    LAYER_MEDIA_TYPE,
    Descriptor,
    IndexArtifact,
    build_manifest,
    index_annotations,
    parse_manifest,
    sha256_digest,
)
from docs_mcp.artifact.reference import DEFAULT_TAG, Reference, check_tag, parse_reference
from docs_mcp.artifact.registry import RegistryClient
from docs_mcp.errors import ArtifactRejected, ConfigError, ReferenceNotFound
from docs_mcp.store.index_manifest import MANIFEST_FILE, IndexManifest, read_manifest

__all__ = ["SOURCE_DATE_EPOCH", "PublishResult", "publish"]

SOURCE_DATE_EPOCH = "SOURCE_DATE_EPOCH"
# 9999-12-31T23:59:59Z: the last second an RFC 3339 time (and Python's datetime) can say.
_LAST_EPOCH = 253_402_300_799


@dataclass(frozen=True)
class PublishResult:
    """What a publish did. ``reused``: the repository already held this content, no blob was uploaded."""

    reference: Reference  # pinned to ``digest``
    digest: str  # the manifest digest
    tags: list[str]
    manifest: IndexManifest
    config: Descriptor
    layer: Descriptor
    content_digest: str
    uploaded_bytes: int
    reused: bool
    dry_run: bool
    seconds: float
    oci_manifest: bytes = field(repr=False, default=b"")  # the exact manifest bytes (shown by --dry-run)


def publish(
    index_dir: Path,
    reference: str | Reference,
    *,
    tags: Sequence[str] = (),
    credentials: Credentials | None = None,
    insecure: bool | None = None,
    source: str | None = None,
    dry_run: bool = False,
    cache_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> PublishResult:
    """Publish the index built into ``index_dir`` at ``reference`` (and every extra tag in ``tags``).

    ``source`` fills ``org.opencontainers.image.source``. The creation time is ``$SOURCE_DATE_EPOCH``
    when set, else now. ``dry_run`` packs and returns the manifest without contacting the registry.

    Raises:
        IndexUnavailable: ``index_dir`` holds no readable index.
        ConfigError: a malformed reference or tag, or a ``$SOURCE_DATE_EPOCH`` that is no Unix time.
        RegistryUnauthorized, RegistryUnreachable, RegistryError: the registry refused or failed.
    """
    started = time.monotonic()
    created = _created(env)  # checked before any work, as the reproducible-builds convention asks
    ref = parse_reference(reference) if isinstance(reference, str) else reference
    all_tags = list(dict.fromkeys([ref.tag or DEFAULT_TAG, *(check_tag(t) for t in tags)]))
    index_dir = Path(index_dir)
    manifest = read_manifest(index_dir)
    config_bytes = (index_dir / MANIFEST_FILE).read_bytes()
    config = Descriptor(CONFIG_MEDIA_TYPE, sha256_digest(config_bytes), len(config_bytes))
    digest_of_content = content_digest(index_dir, config_bytes)
    client = None
    if not dry_run:
        client = RegistryClient(ref, find_credentials(ref.registry, credentials), insecure=insecure)
        existing = _existing(client, digest_of_content)
        if existing is not None:
            body, artifact = existing
            for tag in all_tags:
                client.put_manifest(body, tag)
            return PublishResult(
                ref.pinned(sha256_digest(body)), sha256_digest(body), all_tags, manifest, artifact.config,
                artifact.layer, digest_of_content, 0, True, False, time.monotonic() - started, body,
            )  # fmt: skip
    annotations = index_annotations(
        manifest, content_digest=digest_of_content, created=created, source=source
    )
    scratch = Path(cache_dir or default_cache_dir()) / "tmp"
    scratch.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=scratch, prefix="layer-", suffix=".tar.gz") as packed:
        layer_info = pack(index_dir, packed)  # type: ignore[arg-type]
        packed.flush()
        layer = Descriptor(LAYER_MEDIA_TYPE, layer_info.digest, layer_info.size)
        body = build_manifest(config, layer, annotations)
        blobs = ((config, config_bytes), (layer, Path(packed.name)))
        targets = [*all_tags, content_tag(digest_of_content)]
        uploaded = _upload(client, blobs, body, targets) if client is not None else 0
    digest = sha256_digest(body)
    return PublishResult(
        ref.pinned(digest), digest, all_tags, manifest, config, layer, digest_of_content, uploaded,
        False, dry_run, time.monotonic() - started, body,
    )  # fmt: skip


def _upload(
    client: RegistryClient,
    blobs: Sequence[tuple[Descriptor, Path | bytes]],
    body: bytes,
    targets: Sequence[str],
) -> int:
    """Upload the blobs the repository lacks, then store the manifest at every tag; bytes uploaded."""
    uploaded = 0
    for descriptor, blob in blobs:
        if not client.has_blob(descriptor):
            client.put_blob(descriptor, blob)
            uploaded += descriptor.size
    for target in targets:
        client.put_manifest(body, target)
    return uploaded


def _existing(client: RegistryClient, digest_of_content: str) -> tuple[bytes, IndexArtifact] | None:
    """The repository's artifact for this content, if it has one whose blobs are all still there."""
    try:
        fetched = client.get_manifest(content_tag(digest_of_content))
        artifact = parse_manifest(fetched.body, where=content_tag(digest_of_content))
    except (ReferenceNotFound, ArtifactRejected):
        return None
    if artifact.annotations.get(CONTENT_DIGEST_ANNOTATION) != digest_of_content:
        return None  # a content tag set by something else: publish afresh
    if not (client.has_blob(artifact.config) and client.has_blob(artifact.layer)):
        return None  # garbage-collected blobs: publish afresh
    return fetched.body, artifact


def _created(env: Mapping[str, str] | None) -> str:
    """RFC 3339 creation time: ``$SOURCE_DATE_EPOCH`` (reproducible builds' convention), else now."""
    epoch = (os.environ if env is None else env).get(SOURCE_DATE_EPOCH, "").strip()
    if not epoch:
        moment = datetime.now(UTC)
    elif (
        epoch.isascii()
        and epoch.isdigit()
        and len(epoch) <= len(str(_LAST_EPOCH))
        and int(epoch) <= _LAST_EPOCH
    ):
        moment = datetime.fromtimestamp(int(epoch), UTC)
    else:  # "²" passes isdigit(), 10**30 overflows time_t, 5,000 digits int() refuses: all were tracebacks
        raise ConfigError(
            f"{SOURCE_DATE_EPOCH}={epoch[:40]!r} is not a Unix time: use whole seconds since 1970 "
            f"(0 to {_LAST_EPOCH}), or unset it"
        )
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")
