"""The index folder as one OCI layer: packed reproducibly, unpacked defensively.

Packing takes only what a reader needs, ``docs-mcp-index.json`` and ``.lancedb/`` (not the build's
embedding cache, not a pull's record), in sorted order with fixed metadata: mtime 0, owner 0:0 with
no names, mode 0644 for files and 0755 for folders, and a gzip stream with no name or time in its
header. The same folder therefore always packs to the same bytes and digest (with the same zlib).

Unpacking trusts nothing in the tar: only regular files and folders under those two names, no absolute
paths, no ``..``, no links or devices, no duplicates, and caps on the total size and the number of
entries (a tar bomb stops at the cap, not at a full disk). Any breach raises ``ArtifactRejected``; the
caller extracts into a private folder it removes on failure.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from docs_mcp.errors import ArtifactRejected
from docs_mcp.store.columns import LANCEDB_DIR
from docs_mcp.store.index_manifest import MANIFEST_FILE

PACKED_TOP_LEVEL = (MANIFEST_FILE, LANCEDB_DIR)
DEFAULT_MAX_BYTES = 32 * 1024**3  # an index of 1M chunks with 1536-d vectors stays well under this
DEFAULT_MAX_FILES = 100_000
_GZIP_LEVEL = 6  # zlib's default balance; the lance files are already compressed column by column
_CHUNK = 1 << 20


@dataclass(frozen=True)
class PackedLayer:
    """A packed layer: its digest and size (compressed), and what it holds."""

    digest: str
    size: int
    files: int
    unpacked_bytes: int


def pack(index_dir: Path, out: BinaryIO) -> PackedLayer:
    """Write ``index_dir``'s index files to ``out`` as a reproducible ``tar+gzip`` stream.

    Raises ``OSError`` when a file cannot be read.
    """
    sink = _HashingWriter(out)
    files = unpacked = 0
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=sink, compresslevel=_GZIP_LEVEL, mtime=0) as zipped,
        tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path, name in _index_entries(Path(index_dir)):
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if path.is_dir():
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
                continue
            info.mode, info.size = 0o644, path.stat().st_size
            with path.open("rb") as data:
                tar.addfile(info, data)
            files += 1
            unpacked += info.size
    return PackedLayer("sha256:" + sink.hasher.hexdigest(), sink.size, files, unpacked)


def _index_entries(root: Path) -> Iterator[tuple[Path, str]]:
    """(path, name in the tar) of every folder and file to pack, sorted by name."""
    for top in PACKED_TOP_LEVEL:
        path = root / top
        if path.is_file():
            yield path, top
        elif path.is_dir():
            yield path, top
            for found in sorted(path.rglob("*"), key=lambda p: p.relative_to(root).as_posix()):
                if found.is_symlink() or not (found.is_file() or found.is_dir()):
                    raise OSError(f"{found} is not a regular file or folder; an index holds only those")
                yield found, found.relative_to(root).as_posix()


class _HashingWriter(io.RawIOBase):
    """A write-only stream that hashes and counts what passes through to ``out``."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self.hasher = hashlib.sha256()
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.hasher.update(data)
        self.size += len(data)
        self._out.write(data)
        return len(data)


def unpack(
    blob: Path,
    dest: Path,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_files: int = DEFAULT_MAX_FILES,
) -> int:
    """Extract the layer file ``blob`` into the empty folder ``dest``; returns the number of files.

    Raises ``ArtifactRejected`` for an unsafe entry, a breached cap, or a corrupt stream.
    """
    total = entries = files = 0
    try:
        with tarfile.open(blob, mode="r|gz") as tar:
            for member in tar:
                entries += 1
                if entries > max_files:
                    raise ArtifactRejected(f"the layer holds more than {max_files} entries; refusing it")
                target = dest / _safe_name(member)
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                total += member.size
                if total > max_bytes:
                    raise ArtifactRejected(
                        f"the layer unpacks to more than {max_bytes} bytes (a tar bomb?); refusing it"
                    )
                source = tar.extractfile(member)
                if source is None:  # pragma: no cover - regular files always have data
                    raise ArtifactRejected(f"layer entry {member.name!r} has no data")
                _write_new(target, source)
                files += 1
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise ArtifactRejected(f"the layer is not a valid tar+gzip stream ({error}); refusing it") from error
    return files


def _safe_name(member: tarfile.TarInfo) -> str:
    """The member's relative path after every check, or ``ArtifactRejected``."""
    name = member.name
    if not (member.isfile() or member.isdir()):
        kind = "link" if member.issym() or member.islnk() else "device or special file"
        raise ArtifactRejected(f"layer entry {name!r} is a {kind}; an index holds only files and folders")
    path = PurePosixPath(name)
    if (
        not name
        or "\\" in name
        or "\x00" in name
        or path.is_absolute()
        or any(part in ("..", "") for part in name.rstrip("/").split("/"))
    ):
        raise ArtifactRejected(f"layer entry {name!r} escapes the index folder; refusing the layer")
    if path.parts[0] not in PACKED_TOP_LEVEL or (path.parts[0] == MANIFEST_FILE and len(path.parts) > 1):
        raise ArtifactRejected(
            f"layer entry {name!r} is not part of an index (only {', '.join(PACKED_TOP_LEVEL)})"
        )
    return path.as_posix()


def _write_new(target: Path, source: IO[bytes]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    # O_EXCL: a name twice in the tar is refused rather than overwritten; O_NOFOLLOW: never a link.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o644)
    except FileExistsError:
        raise ArtifactRejected(f"layer entry {target.name!r} appears twice; refusing the layer") from None
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(_CHUNK):
            out.write(chunk)
