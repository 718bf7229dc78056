"""The index folder as one OCI layer: packed reproducibly, unpacked defensively.

Packing takes only what a reader needs, ``docs-mcp-index.json`` and ``.lancedb/`` (not the build's
embedding cache, not a pull's record), in sorted order with fixed metadata: mtime 0, owner 0:0 with
no names, mode 0644 for files and 0755 for folders, and a gzip stream with no name or time in its
header. The same folder therefore always packs to the same bytes and digest (with the same zlib).

Unpacking trusts nothing in the tar: only regular files and folders under those two names, no absolute
paths, no ``..``, no links or devices, no duplicates, and caps on the number of entries and on the
size they declare (from the layer's own size, and the free disk), all checked on the headers before
anything is written: a tar bomb or a sparse entry is refused at once, never unpacked to a full disk.
Any breach raises ``ArtifactRejected``; the caller extracts into a private folder it removes on failure.
"""

from __future__ import annotations

import errno
import gzip
import hashlib
import io
import os
import shutil
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from docs_mcp.errors import ArtifactRejected, NoSpace
from docs_mcp.store.columns import LANCEDB_DIR
from docs_mcp.store.index_manifest import MANIFEST_FILE

PACKED_TOP_LEVEL = (MANIFEST_FILE, LANCEDB_DIR)
DEFAULT_MAX_BYTES = 32 * 1024**3  # an index of 1M chunks with 1536-d vectors stays well under this
DEFAULT_MAX_FILES = 100_000
# Unpacked bytes an index layer may declare per byte of itself: gzip of an index's files (lance
# columns, already compressed) measured 1-3x; a gzip bomb is ~1,000x and a sparse entry far more.
MAX_LAYER_EXPANSION = 50
_EXPANSION_SLACK = 64 * 1024**2  # for small layers: an empty index's files compress very well
_FREE_RESERVE = 64 * 1024**2  # left free on the disk after unpacking, for everything else
_SPACE_CHECK_BYTES = 64 * 1024**2
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

    Two passes over the stream. The first reads only the tar headers: every entry's name and kind,
    at most ``max_files`` entries (it stops at the cap), no name twice, and the sizes they declare
    within the budget: ``max_bytes``, ``MAX_LAYER_EXPANSION`` times the layer's own size (a gzip bomb
    or a sparse entry declares far more than its layer could hold), and the free space at ``dest``.
    Only then is anything written, with the free space checked again as the files grow.

    Raises ``ArtifactRejected`` for an unsafe entry, a breached cap, or a corrupt stream, and
    ``NoSpace`` when ``dest``'s disk cannot hold it.
    """
    budget = min(max_bytes, blob.stat().st_size * MAX_LAYER_EXPANSION + _EXPANSION_SLACK)
    try:
        _count_entries(blob, max_files)
        declared = _survey(blob, max_files, budget)
        _check_space(dest, declared)
        return _extract(blob, dest, declared)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise ArtifactRejected(f"the layer is not a valid tar+gzip stream ({error}); refusing it") from error


_BLOCK = 512
_PAX_TYPES = (b"x", b"g")  # extended headers: they describe the next entry (or all), no entry themselves
_GNU_LONG_TYPES = (b"L", b"K")  # GNU long name / link name: likewise


def _count_entries(blob: Path, max_files: int) -> None:
    """Refuse a layer of more than ``max_files`` entries, counted from the raw 512-byte headers.

    tarfile parses a header in ~100 us, so it took 12-18 s just to reach entry 100,001 on this
    machine; reading only each header's type and size to skip its data takes a fraction of that.
    A layer this cannot read is left to tarfile's own pass, which checks everything."""
    entries = 0
    pax_size: int | None = None
    with gzip.open(blob, "rb") as stream:
        while len(header := stream.read(_BLOCK)) == _BLOCK and header.count(0) != _BLOCK:
            kind = header[156:157]
            size = _header_size(header[124:136]) if pax_size is None or kind in _PAX_TYPES else pax_size
            if size is None:
                return
            data = stream.read(-(-size // _BLOCK) * _BLOCK) if kind in _PAX_TYPES else None
            if data is not None:
                pax_size = _pax_size(data[:size]) if kind == b"x" else None
            else:
                if not _skip(stream, size):
                    return
                pax_size = None
                if kind not in _GNU_LONG_TYPES:
                    entries += 1
                    if entries > max_files:
                        raise ArtifactRejected(
                            f"the layer holds more than {max_files:,} entries; refusing it"
                        )


def _header_size(field: bytes) -> int | None:
    if field[:1] and field[0] & 0x80:  # base-256, for sizes over 8 GiB
        return int.from_bytes(field[1:], "big")
    try:
        return int(field.rstrip(b"\0 ").lstrip(b" ") or b"0", 8)
    except ValueError:
        return None


def _pax_size(records: bytes) -> int | None:
    """The ``size`` of a PAX extended header's records (``"LEN size=N\n"``), if it has one."""
    for record in records.split(b"\n"):
        _, _, pair = record.partition(b" ")
        if pair.startswith(b"size="):
            digits = pair[5:]
            # int() refuses 4,300+ digits (a ValueError out of pull); 20 digits already pass any budget.
            return int(digits[:20]) if digits.isdigit() else None
    return None


def _skip(stream: gzip.GzipFile, size: int) -> bool:
    """Read past an entry's data (padded to whole blocks); False at a truncated stream."""
    left = -(-size // _BLOCK) * _BLOCK
    while left:
        chunk = stream.read(min(left, _CHUNK))
        if not chunk:
            return False
        left -= len(chunk)
    return True


def _survey(blob: Path, max_files: int, budget: int) -> int:
    """The bytes the layer's entries declare, after checking every header (nothing is written)."""
    total = entries = 0
    names: set[str] = set()
    with tarfile.open(blob, mode="r|gz") as tar:
        for member in tar:
            entries += 1
            if entries > max_files:
                raise ArtifactRejected(f"the layer holds more than {max_files:,} entries; refusing it")
            name = _safe_name(member)
            if name in names and not member.isdir():
                raise ArtifactRejected(f"layer entry {name!r} appears twice; refusing the layer")
            names.add(name)
            if member.isdir():
                continue
            total += member.size
            if total > budget:
                raise ArtifactRejected(
                    f"the layer declares more than {budget:,} unpacked bytes, over its cap (at most "
                    f"{MAX_LAYER_EXPANSION}x its own {blob.stat().st_size:,} bytes, MAX_LAYER_EXPANSION): "
                    "a tar bomb or a sparse entry; refusing it"
                )
    return total


def _check_space(dest: Path, needed: int) -> None:
    free = shutil.disk_usage(dest).free
    if needed + _FREE_RESERVE > free:
        raise NoSpace(
            f"{dest.parent}: {free:,} bytes free, too few to unpack an index of {needed:,} bytes "
            f"(and keep {_FREE_RESERVE:,} spare); free some space or choose another --cache-dir / folder"
        )


def _extract(blob: Path, dest: Path, declared: int) -> int:
    files = written = 0
    with tarfile.open(blob, mode="r|gz") as tar:
        for member in tar:
            target = dest / _safe_name(member)
            if member.isdir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            source = tar.extractfile(member)
            if source is None:  # pragma: no cover - regular files always have data
                raise ArtifactRejected(f"layer entry {member.name!r} has no data")
            written += _write_new(target, source, dest)
            if written > declared:  # pragma: no cover - tarfile reads exactly the declared sizes
                raise ArtifactRejected("the layer wrote more than its entries declare; refusing it")
            files += 1
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


def _write_new(target: Path, source: IO[bytes], dest: Path) -> int:
    """Write one entry; returns its bytes. Free space is checked every ``_SPACE_CHECK_BYTES`` (another
    writer may fill the disk meanwhile), and a full disk is ``NoSpace``, never a half-written index."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # O_EXCL: a name twice in the tar is refused rather than overwritten; O_NOFOLLOW: never a link.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o644)
    except FileExistsError:
        raise ArtifactRejected(f"layer entry {target.name!r} appears twice; refusing the layer") from None
    written = 0
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := source.read(_CHUNK):
                out.write(chunk)
                written += len(chunk)
                if written % _SPACE_CHECK_BYTES < len(chunk) and shutil.disk_usage(dest).free < _FREE_RESERVE:
                    raise NoSpace(f"{dest.parent}: the disk filled up while unpacking; free some space")
    except OSError as error:
        if error.errno == errno.ENOSPC:
            raise NoSpace(
                f"{dest.parent}: no space left on the device while unpacking; free some space"
            ) from None
        raise
    return written
