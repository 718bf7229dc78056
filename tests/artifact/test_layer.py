"""The layer packs reproducibly and unpacks only what an index may hold."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from docs_mcp.artifact.layer import pack, unpack
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
