"""The rebuild cache lives outside OUT, and what it returns is checked: a damaged cache file never fails a
build and never puts a wrong row in the index (issues 30 and 33)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import lancedb
import pytest

from docs_mcp.corpus.chunk_cache import CHUNK_CACHE_FILE
from docs_mcp.entry_file import EntryWriter, read_entries
from docs_mcp.indexing import row_cache
from docs_mcp.indexing.build_cache import LEGACY_CACHE_DIR_NAME
from docs_mcp.indexing.pipeline import BuildOptions, BuildResult, build
from docs_mcp.indexing.row_cache import ROW_CACHE_FILE
from docs_mcp.store.cache_home import CACHE_ENV
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(300)

PHRASE = b"exponential backoff with jitter"
FLIPPED = b"exponential!backoff with jitter"  # one bit: 0x20 -> 0x21, as in issue 33's finding


def _rows(out: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = (
        lancedb.connect(str(out / ".lancedb")).open_table("chunks").to_arrow().to_pylist()
    )
    return rows


def _flip_first(path: Path, phrase: bytes) -> None:
    data = bytearray(path.read_bytes())
    at = data.find(phrase)
    assert at >= 0, f"{phrase!r} not in {path}"
    data[at + len(b"exponential")] ^= 0x01
    path.write_bytes(bytes(data))


@pytest.fixture
def built(tmp_path: Path) -> tuple[Path, Path, BuildResult]:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out"
    return docs, out, build(BuildOptions(docs_dir=docs, out=out))


def test_the_index_folder_holds_the_index_and_the_cache_lives_in_the_cache_home(
    built: tuple[Path, Path, BuildResult], test_cache_home: Path
) -> None:
    docs, out, result = built
    assert sorted(p.name for p in out.iterdir()) == [".lancedb", "docs-mcp-index.json"]
    assert result.cache_dir is not None and result.cache_dir.is_relative_to(test_cache_home / "builds")
    assert (result.cache_dir / CHUNK_CACHE_FILE).is_file() and (result.cache_dir / ROW_CACHE_FILE).is_file()
    again = build(BuildOptions(docs_dir=docs, out=out.parent / "elsewhere"))
    assert again.cache_dir == result.cache_dir and again.files_rechunked == 0  # keyed by the docs folder
    other = write_docs(out.parent / "other-docs")
    assert build(BuildOptions(docs_dir=other, out=out.parent / "o")).cache_dir != result.cache_dir


@pytest.mark.parametrize("name", [CHUNK_CACHE_FILE, ROW_CACHE_FILE])
def test_one_flipped_bit_in_cached_text_is_never_served(
    built: tuple[Path, Path, BuildResult], name: str
) -> None:
    docs, out, first = built
    assert first.cache_dir is not None
    _flip_first(first.cache_dir / name, PHRASE)
    assert FLIPPED in (first.cache_dir / name).read_bytes()
    # A full build: an update of unchanged docs reads no rows from the cache (indexing/incremental.py).
    rebuilt = build(BuildOptions(docs_dir=docs, out=out, full=True))
    assert rebuilt.cache_damaged == 1  # one entry failed its digest and was made again
    assert rebuilt.files_rechunked == (1 if name == CHUNK_CACHE_FILE else 0)
    texts = " ".join(str(row["text"]) + str(row["markdown"]) for row in _rows(out))
    assert PHRASE.decode() in texts and FLIPPED.decode() not in texts
    fresh = build(BuildOptions(docs_dir=docs, out=out.parent / "fresh", cache_dir=out.parent / "fresh-cache"))
    assert _rows(out) == _rows(out.parent / "fresh")
    assert fresh.cache_damaged == 0
    # The damaged entry was replaced: the next rebuild reuses everything again.
    assert build(BuildOptions(docs_dir=docs, out=out)).cache_damaged == 0


@pytest.mark.parametrize("name", [CHUNK_CACHE_FILE, ROW_CACHE_FILE])
def test_random_damage_to_a_cache_file_never_fails_a_build(
    built: tuple[Path, Path, BuildResult], name: str
) -> None:
    """Bit flips, overwritten runs, truncations and appended bytes anywhere in the file (header and
    trailer included): every build succeeds and writes exactly what a full build writes."""
    docs, out, first = built
    assert first.cache_dir is not None
    path = first.cache_dir / name
    good = path.read_bytes()
    expected = _rows(out)
    rng = random.Random(33)
    for trial in range(12):
        data = bytearray(good)
        at = rng.randrange(len(data))
        match trial % 4:
            case 0:
                data[at] ^= 1 << rng.randrange(8)
            case 1:
                data[at : at + 16] = rng.randbytes(16)
            case 2:
                del data[at:]
            case _:
                data += rng.randbytes(rng.randrange(1, 64))
        path.write_bytes(bytes(data))
        build(BuildOptions(docs_dir=docs, out=out))
        assert _rows(out) == expected, f"trial {trial}"
        path.write_bytes(good)


def test_an_entry_naming_a_class_outside_the_chunk_types_is_chunked_again(
    built: tuple[Path, Path, BuildResult],
) -> None:
    """An entry with a valid digest that asks for another class (a planted file): nothing but the chunk
    dataclasses is ever built from the cache, so it is ignored and the file chunked again."""
    docs, out, first = built
    assert first.cache_dir is not None
    path = first.cache_dir / CHUNK_CACHE_FILE
    planted = json.dumps(
        {"class": "Popen", "fields": {"args": ["touch", str(out.parent / "owned")]}}
    ).encode()
    previous = read_entries(path, "docs-mcp chunk cache 2")
    assert previous is not None
    keys = previous.keys
    with EntryWriter(path, "docs-mcp chunk cache 2") as writer:
        for key in keys:
            writer.add(key, planted)
    previous.close()
    rebuilt = build(BuildOptions(docs_dir=docs, out=out))
    assert rebuilt.files_rechunked == rebuilt.file_count and rebuilt.cache_damaged == len(keys)
    assert not (out.parent / "owned").exists()


def test_a_cache_an_older_build_left_inside_out_moves_out_and_its_pickle_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: a chunks.pickle that unpickles to a TypeError killed the next build. Now the old
    formats are never read: the folder moves to the cache home (its embeddings kept), the stale files
    are removed, and OUT holds only the index."""
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out, embedding_provider="hash"))
    legacy = out / LEGACY_CACHE_DIR_NAME
    legacy.mkdir()
    (legacy / "chunks.pickle").write_bytes(
        b"\x80\x05\x95\x00cbuiltins\nint\n(Vx\ntR."
    )  # int("x"): ValueError
    (legacy / "rows.arrow").write_bytes(b"ARROW1\x00\x00garbage")
    (legacy / "kept.seg").write_bytes(b"not a segment")
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "home"))
    rebuilt = build(BuildOptions(docs_dir=docs, out=out, embedding_provider="hash"))
    assert rebuilt.cache_dir is not None
    assert not legacy.exists()
    assert (rebuilt.cache_dir / "kept.seg").is_file()
    assert (
        not (rebuilt.cache_dir / "chunks.pickle").exists() and not (rebuilt.cache_dir / "rows.arrow").exists()
    )


@pytest.mark.parametrize("provider", ["none", "hash"])
def test_rows_streamed_in_small_batches_make_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    """Issue 34: rows go to LanceDB batch by batch (vectors joined per batch); the table, the word
    counts and the rebuild cache do not depend on the batch size."""
    docs = write_docs(tmp_path / "docs")
    whole = build(BuildOptions(docs_dir=docs, out=tmp_path / "whole", embedding_provider=provider))
    monkeypatch.setattr(row_cache, "BATCH_ROWS", 2)
    cache = tmp_path / "small-cache"
    small = build(
        BuildOptions(docs_dir=docs, out=tmp_path / "small", embedding_provider=provider, cache_dir=cache)
    )
    assert small.chunk_count == whole.chunk_count > 4
    assert _rows(tmp_path / "small") == _rows(tmp_path / "whole")
    terms = [
        lancedb.connect(str(out / ".lancedb")).open_table("terms").to_arrow()
        for out in (tmp_path / "small", tmp_path / "whole")
    ]
    assert terms[0].equals(terms[1]) and terms[0].num_rows > 10
    rebuilt = build(
        BuildOptions(docs_dir=docs, out=tmp_path / "small", embedding_provider=provider, cache_dir=cache)
    )
    assert rebuilt.files_rechunked == 0 and _rows(tmp_path / "small") == _rows(tmp_path / "whole")
    assert not list(cache.glob("*.tmp"))  # every streamed cache file was committed or dropped
