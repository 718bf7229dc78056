"""The entry file (``docs_mcp.entry_file``): its header is the JSON of every entry, written at the end
from a side file, so a writer holds no entry (issue 34)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from docs_mcp.entry_file import MAGIC, EntryWriter, read_entries


def _header(path: Path) -> bytes:
    data = path.read_bytes()
    assert data.endswith(MAGIC)
    length = int.from_bytes(data[-len(MAGIC) - 8 : -len(MAGIC)], "big")
    return data[-len(MAGIC) - 8 - length : -len(MAGIC) - 8]


@pytest.mark.parametrize("count", [0, 1, 3])
def test_the_header_is_the_json_of_the_metadata_and_every_entry(tmp_path: Path, count: int) -> None:
    path = tmp_path / "cache" / "rows.entries"
    entries = [(f"docs/page-é{n}.md\0{n:064x}", "ü".encode() * (n + 1)) for n in range(count)]
    with EntryWriter(path, "a kind") as writer:
        for key, data in entries:
            writer.add(key, data)
        writer.metadata = {"files": "abc", "facets": ["language", "é"]}
    offsets = [sum(len(data) for _, data in entries[:n]) for n in range(count)]
    expected = {
        "kind": "a kind",
        "metadata": {"files": "abc", "facets": ["language", "é"]},
        "entries": [
            [key, offset, len(data), hashlib.sha256(data).hexdigest()]
            for (key, data), offset in zip(entries, offsets, strict=True)
        ],
    }
    assert _header(path) == json.dumps(expected).encode()
    found = read_entries(path, "a kind")
    assert found is not None and found.keys == [key for key, _ in entries]
    assert [found.get(key) for key, _ in entries] == [data for _, data in entries]
    found.close()
    assert sorted(p.name for p in path.parent.iterdir()) == ["rows.entries"]  # no side file left


def test_a_discarded_writer_leaves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "chunks.entries"
    with pytest.raises(RuntimeError), EntryWriter(path, "a kind") as writer:
        writer.add("key", b"data")
        raise RuntimeError("a failed build")
    assert list(tmp_path.iterdir()) == []
