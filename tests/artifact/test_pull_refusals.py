"""A pull refuses what it must, and a refused or interrupted pull leaves the previous index in place."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from registry_support import Registry, SlowProxy

from docs_mcp.artifact import PublishResult, publish, pull
from docs_mcp.artifact.credentials import Credentials
from docs_mcp.artifact.oci import (
    CONFIG_MEDIA_TYPE,
    LAYER_MEDIA_TYPE,
    Descriptor,
    build_manifest,
    sha256_digest,
)
from docs_mcp.artifact.reference import parse_reference
from docs_mcp.artifact.registry import RegistryClient
from docs_mcp.errors import ArtifactRejected, DigestMismatch, ReferenceNotFound, RegistryUnreachable
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest

pytestmark = pytest.mark.timeout(120)
REPO_ROOT = Path(__file__).resolve().parents[2]


def _previous_index(registry: Registry, index_a: Path, dest: Path, repository: str) -> str:
    """Pull index_a into ``dest`` (the good index a failed pull must leave alone); its identity."""
    publish(index_a, registry.ref(repository, "good"), cache_dir=dest.parent / "publisher")
    pull(registry.ref(repository, "good"), dest, cache_dir=dest.parent / "cache")
    return DocsIndex.open(dest).identity


def _good_then_new(
    registry: Registry, index_a: Path, index_b: Path, tmp_path: Path, repository: str
) -> tuple[Path, str, PublishResult]:
    """``dest`` holding index_a pulled from ``repository``, its identity, and index_b published at :new."""
    dest = tmp_path / "dest"
    identity = _previous_index(registry, index_a, dest, repository)
    published = publish(index_b, registry.ref(repository, "new"), cache_dir=tmp_path / "publisher")
    return dest, identity, published


def _assert_untouched(dest: Path, identity: str) -> None:
    index = DocsIndex.open(dest)
    assert index.identity == identity
    assert index.search(SearchRequest(query="retry a failed payment", limit=1)).hits
    assert [p.name for p in dest.parent.iterdir() if p.name.startswith(f".{dest.name}.")] == []


def _push(registry: Registry, repository: str, config: bytes, layer: bytes, manifest: bytes) -> str:
    client = RegistryClient(parse_reference(registry.ref(repository)), None)
    for data, media_type in ((config, CONFIG_MEDIA_TYPE), (layer, LAYER_MEDIA_TYPE)):
        client.put_blob(Descriptor(media_type, sha256_digest(data), len(data)), data)
    client.put_manifest(manifest, "latest")
    return registry.ref(repository)


def test_a_tampered_blob_in_the_registry_is_refused_and_nothing_is_installed(
    registry: Registry, index_a: Path, index_b: Path, tmp_path: Path
) -> None:
    dest, identity, published = _good_then_new(registry, index_a, index_b, tmp_path, "tampered/index")
    stored = registry.blob_file(published.layer.digest)
    original = stored.read_bytes()
    data = bytearray(original)
    data[len(data) // 2] ^= 0xFF  # same size, one byte flipped
    stored.write_bytes(bytes(data))
    try:
        with pytest.raises(DigestMismatch, match="corrupt or was tampered with"):
            pull(registry.ref("tampered/index", "new"), dest, cache_dir=tmp_path / "cache")
    finally:
        stored.write_bytes(original)  # blobs are shared by every repository of the registry
    _assert_untouched(dest, identity)
    assert not list((tmp_path / "cache" / "blobs" / "sha256").glob(published.layer.digest[7:] + "*"))


def test_an_ordinary_image_is_refused_as_what_it_is(registry: Registry, tmp_path: Path) -> None:
    config = json.dumps({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers"}}).encode()
    layer = gzip.compress(b"\0" * 1024)
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": sha256_digest(config),
                "size": len(config),
            },
            "layers": [
                {
                    "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                    "digest": sha256_digest(layer),
                    "size": len(layer),
                }
            ],
        }
    ).encode()
    client = RegistryClient(parse_reference(registry.ref("some/image")), None)
    for data in (config, layer):
        client.put_blob(Descriptor("application/octet-stream", sha256_digest(data), len(data)), data)
    client.put_manifest(manifest, "latest")
    with pytest.raises(ArtifactRejected, match="an ordinary container image, not a docs-mcp index"):
        pull(registry.ref("some/image"), tmp_path / "dest", cache_dir=tmp_path / "cache")
    assert not (tmp_path / "dest").exists()


def _evil_layer(name: str, data: bytes) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue())


@pytest.mark.parametrize(
    ("name", "size", "complaint"),
    [
        ("../../escaped.txt", 10, "escapes the index folder"),
        ("/tmp/escaped.txt", 10, "escapes the index folder"),
        (".lancedb/zeros", 64 * 2**20, "tar bomb"),
    ],
)
def test_layers_that_escape_or_explode_are_refused_with_no_partial_folder(
    registry: Registry, index_a: Path, tmp_path: Path, name: str, size: int, complaint: str
) -> None:
    dest = tmp_path / "dest"
    identity = _previous_index(registry, index_a, dest, "evil/base")
    config = (index_a / "docs-mcp-index.json").read_bytes()
    layer = _evil_layer(name, bytes(size))
    manifest = build_manifest(
        Descriptor(CONFIG_MEDIA_TYPE, sha256_digest(config), len(config)),
        Descriptor(LAYER_MEDIA_TYPE, sha256_digest(layer), len(layer)),
        {},
    )
    ref = _push(registry, "evil/layer", config, layer, manifest)
    with pytest.raises(ArtifactRejected, match=complaint):
        pull(ref, dest, cache_dir=tmp_path / "cache", max_bytes=8 * 2**20)
    _assert_untouched(dest, identity)
    assert not (tmp_path / "escaped.txt").exists()


def test_an_index_of_an_unknown_format_version_is_refused(
    registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    document = json.loads((index_a / "docs-mcp-index.json").read_text())
    document["format_version"] = 99
    config = json.dumps(document).encode()
    layer = _evil_layer("docs-mcp-index.json", config)
    manifest = build_manifest(
        Descriptor(CONFIG_MEDIA_TYPE, sha256_digest(config), len(config)),
        Descriptor(LAYER_MEDIA_TYPE, sha256_digest(layer), len(layer)),
        {},
    )
    ref = _push(registry, "future/index", config, layer, manifest)
    with pytest.raises(ArtifactRejected, match="format version 99"):
        pull(ref, tmp_path / "dest", cache_dir=tmp_path / "cache")
    assert not (tmp_path / "dest").exists()


def test_an_unknown_tag_and_an_unreachable_registry_say_so(registry: Registry, tmp_path: Path) -> None:
    with pytest.raises(ReferenceNotFound, match="no manifest no-such-tag"):
        pull(registry.ref("missing/index", "no-such-tag"), tmp_path / "dest", cache_dir=tmp_path)
    started = time.monotonic()
    with pytest.raises(RegistryUnreachable, match=r"cannot reach the registry 127\.0\.0\.1:9"):
        pull("127.0.0.1:9/docs:v1", tmp_path / "dest", cache_dir=tmp_path)
    assert time.monotonic() - started < 10  # no retry loop with growing sleeps
    assert not (tmp_path / "dest").exists()


def test_a_pull_killed_mid_download_leaves_the_previous_index(
    registry: Registry, index_a: Path, index_b: Path, tmp_path: Path
) -> None:
    dest, identity, published = _good_then_new(registry, index_a, index_b, tmp_path, "killed/pull")
    proxy = SlowProxy(registry.host, rate=published.layer.size // 8)  # ~8 s for the layer
    cache = tmp_path / "cache"
    blobs = cache / "blobs" / "sha256"
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "docs_mcp", "pull", f"{proxy.host}/killed/pull:new", "--out", str(dest),
             "--cache-dir", str(cache)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO_ROOT,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not list(blobs.glob("*.partial-*")):  # the download has begun
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the download never started"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    finally:
        proxy.close()
        if process.stderr:
            process.stderr.close()
    _assert_untouched(dest, identity)
    assert list(blobs.glob("*.partial-*"))  # the dead pull's temporary blob, never trusted
    pulled = pull(registry.ref("killed/pull", "new"), dest, cache_dir=cache, credentials=None)
    assert DocsIndex.open(dest).identity == pulled.manifest.identity != identity
    assert not list(blobs.glob("*.partial-*"))  # cleaned by the next pull


def test_credentials_given_to_an_anonymous_registry_do_no_harm(
    registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    publish(index_a, registry.ref("anon/index"), cache_dir=tmp_path)
    pulled = pull(
        registry.ref("anon/index"), tmp_path / "dest", cache_dir=tmp_path, credentials=Credentials("u", "p")
    )
    assert pulled.path == tmp_path / "dest"


def _sparse_layer() -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo(".lancedb/data.lance")
        info.size, size = 10, 40 * 2**30
        info.pax_headers = {"GNU.sparse.size": str(size), "GNU.sparse.map": f"{size - 10},10"}
        tar.addfile(info, io.BytesIO(b"x" * 10))
    return gzip.compress(raw.getvalue())


@pytest.mark.parametrize(
    ("case", "complaint"),
    [
        ("sparse-layer", "a tar bomb or a sparse entry"),
        ("nested-config", "nested more than 64 levels deep"),
    ],
)
def test_crafted_artifacts_are_one_line_refusals_in_pull_and_serve(
    registry: Registry, index_a: Path, tmp_path: Path, case: str, complaint: str
) -> None:
    """Issue 19: a 40 KB sparse layer (right artifactType and digests) wrote until the disk was full,
    then an ENOSPC traceback; a deeply nested config blob was a RecursionError in pull and serve."""
    dest = tmp_path / "dest"
    identity = _previous_index(registry, index_a, dest, f"crafted/{case}-base")
    config = (index_a / "docs-mcp-index.json").read_bytes()
    layer = _evil_layer("docs-mcp-index.json", config)
    if case == "sparse-layer":
        layer = _sparse_layer()
    else:
        config = b'{"format_version": 1, "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    manifest = build_manifest(
        Descriptor(CONFIG_MEDIA_TYPE, sha256_digest(config), len(config)),
        Descriptor(LAYER_MEDIA_TYPE, sha256_digest(layer), len(layer)),
        {},
    )
    ref = _push(registry, f"crafted/{case}", config, layer, manifest)
    with pytest.raises(ArtifactRejected, match=complaint):
        pull(ref, dest, cache_dir=tmp_path / "cache")
    _assert_untouched(dest, identity)
    for command in (["pull", ref, "--out", str(tmp_path / "fresh")], ["serve", "--index", f"oci://{ref}"]):
        done = subprocess.run(
            [sys.executable, "-m", "docs_mcp", *command, "--cache-dir", str(tmp_path / "cli-cache")],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 1, done.stderr
        assert done.stderr.count("\n") == 1 and complaint in done.stderr, done.stderr


PULL_ONTO_A_SMALL_DISK = """
set -e
mount -t tmpfs -o size=8m tmpfs "$1"
set +e
"$PYTHON" -m docs_mcp pull "$2" --out "$1/out" --cache-dir "$1/cache"
echo "pull exit $?"
ls -A "$1"
"""


def test_a_pull_onto_a_disk_too_small_is_refused_before_unpacking(
    registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    """The free space is checked against what the layer's headers declare before a byte is unpacked
    (issue 19: a crafted layer wrote until the disk was full). The disk is a real 8 MiB tmpfs in a
    private mount namespace: the index fits, the spare space docs-mcp keeps does not."""
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs root and unshare (util-linux) for a private tmpfs")
    if subprocess.run(["unshare", "--mount", "true"], capture_output=True, timeout=30).returncode != 0:
        pytest.skip("no private mount namespace here")
    published = publish(index_a, registry.ref("small/disk"), cache_dir=tmp_path / "publisher")
    (tmp_path / "disk").mkdir()
    env = {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(REPO_ROOT / "src")}
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "bash", "-c", PULL_ONTO_A_SMALL_DISK, "-",
         str(tmp_path / "disk"), str(published.reference)],
        capture_output=True, text=True, timeout=100, env=env,
    )  # fmt: skip
    assert "pull exit 1" in done.stdout, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "too few to unpack an index" in done.stderr, done.stderr
    assert "out" not in done.stdout.split("pull exit 1", 1)[1].split(), done.stdout  # nothing installed
