"""The layer packs reproducibly and unpacks only what an index may hold."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docs_mcp.artifact.layer import DEFAULT_MAX_FILES, MAX_LAYER_EXPANSION, pack, unpack
from docs_mcp.errors import ArtifactRejected


def _pack(folder: Path, out: Path) -> str:
    with out.open("wb") as handle:
        return pack(folder, handle).digest


def test_the_same_folder_packs_to_the_same_bytes_whatever_its_mtimes_and_modes(
    index_a: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(index_a, copy)
    for path in copy.rglob("*"):
        os.utime(path, (1_000_000, 1_000_000))
        path.chmod(0o700 if path.is_dir() else 0o600)
    first, second = _pack(index_a, tmp_path / "a.tar.gz"), _pack(copy, tmp_path / "b.tar.gz")
    assert first == second
    assert (tmp_path / "a.tar.gz").read_bytes() == (tmp_path / "b.tar.gz").read_bytes()


def test_only_the_index_is_packed_not_the_embedding_cache_or_stray_files(
    index_a: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(index_a, copy)
    (copy / ".docs-mcp-cache").mkdir(exist_ok=True)
    (copy / ".docs-mcp-cache" / "vectors.bin").write_bytes(b"x" * 100)
    (copy / "notes.txt").write_text("not part of the index")
    with (tmp_path / "layer.tar.gz").open("wb") as handle:
        pack(copy, handle)
    with tarfile.open(tmp_path / "layer.tar.gz") as tar:
        names = tar.getnames()
        infos = tar.getmembers()
    assert {name.split("/")[0] for name in names} == {"docs-mcp-index.json", ".lancedb"}
    # The index manifest first (a reader can stop there), then the table's files in sorted order.
    assert names[0] == "docs-mcp-index.json" and names[1:] == sorted(names[1:])
    assert {(i.mtime, i.uid, i.gid, i.uname, i.gname) for i in infos} == {(0, 0, 0, "", "")}
    assert {i.mode for i in infos} == {0o644, 0o755}


def test_a_packed_index_unpacks_to_the_same_files(index_a: Path, tmp_path: Path) -> None:
    _pack(index_a, tmp_path / "layer.tar.gz")
    dest = tmp_path / "dest"
    dest.mkdir()
    files = unpack(tmp_path / "layer.tar.gz", dest)
    originals = sorted(
        p.relative_to(index_a) for p in index_a.rglob("*") if p.is_file() and ".docs-mcp-cache" not in p.parts
    )
    assert sorted(p.relative_to(dest) for p in dest.rglob("*") if p.is_file()) == originals
    assert files == len(originals)
    for relative in originals:
        assert (dest / relative).read_bytes() == (index_a / relative).read_bytes()


def _layer(tmp_path: Path, add: Callable[[tarfile.TarFile], None]) -> Path:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        add(tar)
    path = tmp_path / "evil.tar.gz"
    path.write_bytes(gzip.compress(raw.getvalue()))
    return path


def _file(tar: tarfile.TarFile, name: str, data: bytes = b"x") -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _link(kind: bytes, name: str, target: str) -> Callable[[tarfile.TarFile], None]:
    def add(tar: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, target
        tar.addfile(info)

    return add


def _device(tar: tarfile.TarFile) -> None:
    info = tarfile.TarInfo(".lancedb/null")
    info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 3
    tar.addfile(info)


@pytest.mark.parametrize(
    ("add", "complaint"),
    [
        (lambda tar: _file(tar, "../outside.txt"), "escapes the index folder"),
        (lambda tar: _file(tar, ".lancedb/../../outside.txt"), "escapes the index folder"),
        (lambda tar: _file(tar, "/etc/cron.d/evil"), "escapes the index folder"),
        (lambda tar: _file(tar, "etc/passwd"), "not part of an index"),
        (lambda tar: _file(tar, "docs-mcp-index.json/inner"), "not part of an index"),
        (_link(tarfile.SYMTYPE, ".lancedb/link", "/etc/passwd"), "is a link"),
        (_link(tarfile.LNKTYPE, ".lancedb/hard", "docs-mcp-index.json"), "is a link"),
        (_device, "device or special file"),
        (lambda tar: (_file(tar, ".lancedb/a"), _file(tar, ".lancedb/a")), "appears twice"),
    ],
)
def test_unsafe_layers_are_refused(
    tmp_path: Path, add: Callable[[tarfile.TarFile], None], complaint: str
) -> None:
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(ArtifactRejected, match=complaint):
        unpack(_layer(tmp_path, add), dest)
    assert not (tmp_path / "outside.txt").exists()


def test_a_tar_bomb_stops_at_the_size_cap(tmp_path: Path) -> None:
    # 64 MiB of zeros compress to ~64 KiB; the cap stops extraction long before the disk fills.
    bomb = _layer(tmp_path, lambda tar: _file(tar, ".lancedb/zeros", bytes(64 * 2**20)))
    assert bomb.stat().st_size < 2**20
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(ArtifactRejected, match="tar bomb"):
        unpack(bomb, dest, max_bytes=8 * 2**20)
    assert not (dest / ".lancedb" / "zeros").exists()


def test_too_many_entries_are_refused(tmp_path: Path) -> None:
    many = _layer(tmp_path, lambda tar: [_file(tar, f".lancedb/f{n}") for n in range(20)])
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(ArtifactRejected, match="more than 10 entries"):
        unpack(many, dest, max_files=10)


def test_a_corrupt_stream_is_refused(tmp_path: Path) -> None:
    good = _layer(tmp_path, lambda tar: _file(tar, ".lancedb/a", os.urandom(200_000)))
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(ArtifactRejected, match="not a valid tar"):
        unpack(broken, dest)


def sparse_entry(tar: tarfile.TarFile, name: str = ".lancedb/data.lance", size: int = 40 * 2**30) -> None:
    """A GNU sparse entry (PAX 0.1): a few bytes in the layer that stand for ``size`` on disk."""
    info = tarfile.TarInfo(name)
    info.size = 10
    info.pax_headers = {"GNU.sparse.size": str(size), "GNU.sparse.map": f"{size - 10},10"}
    tar.addfile(info, io.BytesIO(b"x" * 10))


def test_a_sparse_entry_is_refused_from_its_header_before_a_byte_is_written(tmp_path: Path) -> None:
    """Issue 19: a 40 KB sparse layer wrote until the disk was full (the 32 GiB cap came too late)."""
    layer = _layer(tmp_path, sparse_entry)
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(ArtifactRejected, match="a tar bomb or a sparse entry"):
        unpack(layer, dest)
    assert list(dest.iterdir()) == []


def test_a_gzip_bomb_is_refused_by_the_cap_from_the_layers_own_size(tmp_path: Path) -> None:
    """No max_bytes given: the default budget is MAX_LAYER_EXPANSION x the layer's size (plus a
    little), so 256 MiB of zeros in ~250 KiB of gzip is refused before it is written."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        info = tarfile.TarInfo(".lancedb/zeros")
        info.size = 256 * 2**20
        tar.addfile(info, _Zeros(info.size))
    bomb = tmp_path / "bomb.tar.gz"
    bomb.write_bytes(gzip.compress(raw.getvalue(), compresslevel=1))
    assert bomb.stat().st_size * MAX_LAYER_EXPANSION < 128 * 2**20
    dest = tmp_path / "dest"
    dest.mkdir()
    with pytest.raises(ArtifactRejected, match="a tar bomb or a sparse entry"):
        unpack(bomb, dest)
    assert list(dest.iterdir()) == []


class _Zeros(io.RawIOBase):
    def __init__(self, size: int) -> None:
        self._left = size

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = min(len(buffer), self._left)
        buffer[:count] = bytes(count)
        self._left -= count
        return count


def test_a_layer_of_more_entries_than_the_cap_is_refused_before_any_is_written(tmp_path: Path) -> None:
    """Issue 19: refusing a 100,001-entry layer took 25-141 s (100,000 files were written first). The
    headers are counted first, stopping at the cap; the time is printed for the record (-s)."""
    header = tarfile.TarInfo(".lancedb/f").tobuf()  # one empty file's header, written 100,001 times
    many = tmp_path / "many.tar.gz"
    many.write_bytes(gzip.compress(header * (DEFAULT_MAX_FILES + 1) + bytes(1024), compresslevel=1))
    dest = tmp_path / "dest"
    dest.mkdir()
    started = time.monotonic()
    with pytest.raises(ArtifactRejected, match="more than 100,000 entries"):
        unpack(many, dest)
    print(f"\nrefused a {DEFAULT_MAX_FILES + 1:,}-entry layer in {time.monotonic() - started:.2f} s")
    assert list(dest.iterdir()) == []


def _pax_sized(digits: bytes) -> bytes:
    """A layer whose one entry's PAX header declares ``size=<digits>``, as a hostile registry serves."""
    body = b" size=" + digits + b"\n"
    length = len(body) + len(str(len(body) + len(str(len(body)))))
    record = str(length).encode() + body
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, len(record)
    entry = tarfile.TarInfo("docs-mcp-index.json")
    entry.size = 3
    raw = (
        header.tobuf(format=tarfile.USTAR_FORMAT) + record + b"\0" * (-len(record) % 512)
        + entry.tobuf(format=tarfile.USTAR_FORMAT) + b"abc" + b"\0" * 509 + b"\0" * 1024
    )  # fmt: skip
    return gzip.compress(raw)


def test_a_pax_size_of_thousands_of_digits_is_read_as_tarfile_reads_it(tmp_path: Path) -> None:
    """int() refuses 4,300+ digits: a layer whose PAX header declared such a size was a ValueError
    traceback out of pull. Now it is read as tarfile reads it (an unreadable size is none)."""
    blob = tmp_path / "layer.tar.gz"
    blob.write_bytes(_pax_sized(b"9" * 5000))
    (tmp_path / "dest").mkdir()
    assert unpack(blob, tmp_path / "dest") == 1


def test_a_pax_size_of_thirty_digits_is_refused_by_the_size_cap(tmp_path: Path) -> None:
    blob = tmp_path / "layer.tar.gz"
    blob.write_bytes(_pax_sized(b"9" * 30))
    (tmp_path / "dest").mkdir()
    with pytest.raises(ArtifactRejected, match="over its cap"):
        unpack(blob, tmp_path / "dest")
