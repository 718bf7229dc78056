"""Chunked files kept between builds, by everything that decides them, so a rebuild chunks only what changed.

The key of a file is the sha256 of the chunking code (every source file of ``docs_mcp.parse`` and
``docs_mcp.chunk``, the docs-mcp and markdown-it-py versions), the file's path, its resolved settings
(strategy and metadata from its manifests) and its text. ``chunk_file`` is a pure function of those,
so a hit is exactly what chunking again would give.

Storage: one pickle in the build's cache folder (``OUT/.docs-mcp-cache/chunks.pickle`` by default),
rewritten (temporary file, then ``os.replace``) only when a build chunked something new, holding the
files of that build only. Pickle, because ``ChunkedFile`` is what the chunk pool already sends between
processes; the cache folder is the build's own (never published or pulled: see ``artifact.layer``), as
trusted as the index it sits in. An unreadable or foreign file is ignored: everything is chunked again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import pickle
import uuid
from functools import cache
from pathlib import Path

import docs_mcp
from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.chunks import FileSettings

CHUNK_CACHE_FILE = "chunks.pickle"
_FORMAT = "docs-mcp chunk cache 1"


@cache
def code_fingerprint() -> bytes:
    """The sha256 of what chunking depends on besides its input: the chunking code and its versions."""
    digest = hashlib.sha256(f"{_FORMAT}\0{docs_mcp.__version__}\0".encode())
    digest.update(importlib.metadata.version("markdown-it-py").encode())
    package = Path(docs_mcp.__file__).parent
    for stage in ("parse", "chunk"):
        for source in sorted((package / stage).glob("*.py")):
            digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.digest()


def file_key(path: str, text: str, settings: FileSettings) -> str:
    """The hex key of chunking ``text`` at ``path`` under ``settings``."""
    digest = hashlib.sha256(code_fingerprint())
    encoded_path = path.encode("utf-8", "surrogatepass")
    settings_repr = repr(settings).encode("utf-8", "surrogatepass")
    for part in (encoded_path, settings_repr):
        digest.update(len(part).to_bytes(8, "big") + part)
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class ChunkCache:
    """The chunked files of the last build that used ``directory``; ``get`` and ``put`` by ``file_key``."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / CHUNK_CACHE_FILE
        self._previous: dict[str, ChunkedFile] = self._read()
        self._current: dict[str, ChunkedFile] = {}
        self.hits = 0
        self.misses = 0

    def _read(self) -> dict[str, ChunkedFile]:
        try:
            with self.path.open("rb") as handle:
                stored = pickle.load(handle)  # the build's own cache folder (see the module docstring)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, ValueError):
            return {}
        if not isinstance(stored, dict) or stored.get("format") != _FORMAT:
            return {}
        files = stored.get("files")
        return files if isinstance(files, dict) else {}

    def get(self, key: str) -> ChunkedFile | None:
        """The cached chunked file of ``key``, or None (counted as a hit or a miss)."""
        found = self._previous.get(key)
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
            self._current[key] = found
        return found

    def put(self, key: str, chunked: ChunkedFile) -> None:
        self._current[key] = chunked

    def save(self) -> None:
        """Keep this build's files for the next one (only when something changed). Raises ``OSError``."""
        if self._current.keys() == self._previous.keys():
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f"{self.path.name}.{uuid.uuid4().hex}.tmp")
        try:
            with temporary.open("wb") as handle:
                pickle.dump({"format": _FORMAT, "files": self._current}, handle, pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self.path)
        finally:
            temporary.unlink(missing_ok=True)
        self._previous = dict(self._current)
