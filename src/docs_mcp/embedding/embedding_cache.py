"""A content-addressed embedding cache wrapped around any provider.

The key of a vector is the sha256 of the provider name, model, dimensions and the exact embedding
input, so a rebuild embeds only inputs that changed and a chunk that moved costs nothing.

Storage: append-only segment files in ``cache_dir``, one per ``embed_documents`` call that had
misses. A segment is a small header, the 32-byte keys, then the float32 vectors, written to a
temporary file and moved into place with ``os.replace``: a build interrupted at any point leaves
only whole segments (and perhaps a stray ``.tmp`` that is ignored). Opening the cache reads the
keys of every segment; vectors are read from their segments as they are asked for, never kept (a
build of a million chunks would otherwise hold every vector it reused or made). Several
processes may share a cache directory: each writes segments under fresh names.
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp.embedding.provider import CostEstimate, EmbeddingProvider

_MAGIC = b"DMCPEMB1"
_HEADER = struct.Struct("<8sII")  # magic, count, dimensions
_KEY_BYTES = 32
SEGMENT_SUFFIX = ".seg"

Matrix = np.ndarray[Any, np.dtype[np.float32]]


def cache_key(name: str, model: str, dimensions: int, text: str) -> bytes:
    """The 32-byte key of ``text`` embedded by the provider ``name``/``model``/``dimensions``."""
    digest = hashlib.sha256(f"{name}\0{model}\0{dimensions}\0".encode())
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.digest()


class VectorStore:
    """Vectors by key in ``directory``; ``get`` never raises on a damaged segment, it skips it."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        # key -> (segment number, row); vectors are read from the segment when asked for.
        self._where: dict[bytes, tuple[int, int]] = {}
        self._segments: list[tuple[Path, int, int]] = []  # path, offset of the vectors, dimensions
        self._lock = threading.Lock()
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.glob(f"*{SEGMENT_SUFFIX}")):
            self._index_segment(path)

    def _index_segment(self, path: Path) -> None:
        try:
            with path.open("rb") as handle:
                magic, count, dimensions = _HEADER.unpack(handle.read(_HEADER.size))
                keys = handle.read(count * _KEY_BYTES)
            expected = _HEADER.size + count * (_KEY_BYTES + 4 * dimensions)
            if magic != _MAGIC or len(keys) != count * _KEY_BYTES or path.stat().st_size != expected:
                return  # not ours, or damaged: its inputs are simply embedded again
        except (OSError, struct.error, ValueError):
            return
        number = len(self._segments)
        self._segments.append((path, _HEADER.size + count * _KEY_BYTES, dimensions))
        for row in range(count):
            self._where[keys[row * _KEY_BYTES : (row + 1) * _KEY_BYTES]] = (number, row)

    def _rows(self, number: int, rows: Sequence[int]) -> Matrix | None:
        """The vectors at ``rows`` of segment ``number``; None when it cannot be read."""
        path, offset, dimensions = self._segments[number]
        width = 4 * dimensions
        try:
            with path.open("rb") as handle:
                data = b"".join(os.pread(handle.fileno(), width, offset + row * width) for row in rows)
        except OSError:
            return None
        if len(data) != width * len(rows):
            return None
        return np.frombuffer(data, dtype=np.float32).reshape(len(rows), dimensions)

    def __len__(self) -> int:
        with self._lock:
            self._load()
            return len(self._where)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            self._load()
            return key in self._where

    def get(self, key: bytes) -> list[float] | None:
        """The stored vector of ``key``, or None."""
        return self.get_many([key])[0]

    def get_many(self, keys: Sequence[bytes]) -> list[list[float] | None]:
        """The stored vectors of ``keys`` (None for each not stored), each segment read once."""
        with self._lock:
            self._load()
            where = [self._where.get(key) for key in keys]
        by_segment: dict[int, list[int]] = {}
        for index, found in enumerate(where):
            if found is not None:
                by_segment.setdefault(found[0], []).append(index)
        vectors: list[list[float] | None] = [None] * len(keys)
        for number, indices in by_segment.items():
            rows = self._rows(number, [where[index][1] for index in indices])  # type: ignore[index]
            if rows is not None:
                for index, vector in zip(indices, rows.tolist(), strict=True):
                    vectors[index] = vector
        return vectors

    def put_many(self, keys: Sequence[bytes], vectors: Sequence[Sequence[float]], dimensions: int) -> None:
        """Store ``vectors`` under ``keys`` as one new segment, atomically. Raises ``OSError``."""
        if not keys:
            return
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(keys), dimensions)
        self.directory.mkdir(parents=True, exist_ok=True)
        name = uuid.uuid4().hex
        final = self.directory / f"{name}{SEGMENT_SUFFIX}"
        temporary = self.directory / f"{name}.tmp"
        with temporary.open("wb") as handle:
            handle.write(_HEADER.pack(_MAGIC, len(keys), dimensions))
            handle.write(b"".join(keys))
            handle.write(matrix.tobytes())
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, final)
        with self._lock:
            self._load()
            number = len(self._segments)
            self._segments.append((final, _HEADER.size + len(keys) * _KEY_BYTES, dimensions))
            for row, key in enumerate(keys):
                self._where[key] = (number, row)


class CachingProvider:
    """``inner`` behind the cache in ``cache_dir``; same name, model and dimensions as ``inner``.

    ``hits`` and ``misses`` count document inputs served from the cache and embedded afresh.
    Queries pass straight through. Raises what ``inner`` raises, and ``OSError`` if the cache
    directory cannot be written.
    """

    def __init__(self, inner: EmbeddingProvider, cache_dir: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.model = inner.model
        self.dimensions = inner.dimensions
        self.batch_size = inner.batch_size
        self.concurrency = inner.concurrency
        self.store = VectorStore(Path(cache_dir))
        self.hits = 0
        self.misses = 0
        self.embedded = 0  # inputs sent to ``inner`` (a text missing twice is embedded once)

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        """Cached vectors for ``texts``, embedding (in input order) only the ones not cached yet."""
        keys = [cache_key(self.name, self.model, self.dimensions, text) for text in texts]
        vectors: list[list[float] | None] = self.store.get_many(keys)
        missing = [i for i, vector in enumerate(vectors) if vector is None]
        # The same new text twice in one call is embedded once.
        first_of: dict[bytes, int] = {}
        to_embed = [i for i in missing if first_of.setdefault(keys[i], i) == i]
        if to_embed:
            miss_labels = [labels[i] for i in to_embed] if labels is not None else None
            fresh = self.inner.embed_documents([texts[i] for i in to_embed], labels=miss_labels)
            self.embedded += len(to_embed)
            self.store.put_many([keys[i] for i in to_embed], fresh, self.dimensions)
            for i, vector in zip(to_embed, fresh, strict=True):
                vectors[i] = list(vector)
            for i in missing:
                vectors[i] = vectors[first_of[keys[i]]]
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        return [vector for vector in vectors if vector is not None]

    def plan(self, texts: Sequence[str]) -> tuple[int, int]:
        """What ``embed_documents(texts)`` would do: (inputs to embed, i.e. distinct texts not cached
        yet; texts already cached). The rest repeat a text to embed."""
        keys = [cache_key(self.name, self.model, self.dimensions, text) for text in texts]
        cached = sum(key in self.store for key in keys)
        return sum(key not in self.store for key in set(keys)), cached

    def embed_query(self, text: str) -> list[float]:
        """The inner provider's query vector (not cached: queries are cheap and rarely repeat)."""
        return self.inner.embed_query(text)

    def estimate_cost(self, texts: Sequence[str]) -> CostEstimate | None:
        """The inner provider's estimate for all of ``texts`` (an upper bound: hits cost nothing)."""
        return self.inner.estimate_cost(texts)
