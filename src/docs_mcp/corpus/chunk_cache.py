"""Chunked files kept between builds, by everything that decides them, so a rebuild chunks only what changed.

The key of a file is the sha256 of the chunking code (every source file of ``docs_mcp.parse`` and
``docs_mcp.chunk``, the docs-mcp and markdown-it-py versions), the file's path, its resolved settings
(strategy and metadata from its manifests) and its text. ``chunk_file`` is a pure function of those,
so a hit is exactly what chunking again would give.

Storage: ``chunks.entries`` in the build's cache folder (``docs_mcp.indexing.build_cache``), an entry
file (``docs_mcp.entry_file``) holding each chunked file of the last build as JSON under its key, with
its sha256: a damaged entry is chunked again from its source, a damaged or foreign file is ignored
(logged), never a failed build. JSON of the chunk dataclasses only (``_encode``): reading the cache
constructs those classes and nothing else, so a planted file cannot run code. Rewritten (temporary
file, then ``os.replace``) only when a build chunked something new, holding the files of that build.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import logging
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import docs_mcp
from docs_mcp.chunk.chunking import ChunkedFile, Oversized
from docs_mcp.chunk.chunks import Chunk, FileSettings
from docs_mcp.entry_file import EntryFile, EntryWriter, read_entries
from docs_mcp.errors import Finding
from docs_mcp.parse.hints import MetadataDeclaration
from docs_mcp.parse.strategy import Strategy

log = logging.getLogger(__name__)

CHUNK_CACHE_FILE = "chunks.entries"
# The key's stage of an entry holding a page's chunks with their kinds (``chunk.kinds.with_kinds``, a
# function of the chunks alone, its code in the fingerprint): a plain page's, which nothing changes
# between chunking and kinds.
KINDS_STAGE = "kinds"
_FORMAT = "docs-mcp chunk cache 2"
# The classes an entry may hold: decoding builds these from their fields, nothing else.
_CLASSES: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (ChunkedFile, Chunk, Finding, MetadataDeclaration, Oversized, Strategy)
}


class _Unstorable(Exception):
    """A value JSON cannot hold exactly (a YAML date in front matter): the file is not cached."""


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


def file_key(path: str, text: str, settings: FileSettings, stage: str = "") -> str:
    """The hex key of chunking ``text`` at ``path`` under ``settings``; ``stage`` names what more the
    cached entry holds (``KINDS_STAGE``: its sections' kinds recognised too)."""
    digest = hashlib.sha256(code_fingerprint() + stage.encode())
    encoded_path = path.encode("utf-8", "surrogatepass")
    settings_repr = repr(settings).encode("utf-8", "surrogatepass")
    for part in (encoded_path, settings_repr):
        digest.update(len(part).to_bytes(8, "big") + part)
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _encode(value: object) -> object:
    """``value`` as JSON data that ``_decode`` turns back into an equal value of the same types."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return {"float": repr(value)}  # exact, NaN and infinities included
    if isinstance(value, list):
        return [_encode(item) for item in value]
    if isinstance(value, tuple):
        return {"tuple": [_encode(item) for item in value]}
    if isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        return {"map": {key: _encode(item) for key, item in value.items()}}
    name = type(value).__name__
    if dataclasses.is_dataclass(value) and _CLASSES.get(name) is type(value):
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"class": name, "fields": fields}
    raise _Unstorable(name)


def _decode(data: object) -> Any:
    """The value ``_encode`` made ``data`` of. Raises ``ValueError``/``TypeError``/``KeyError`` for data
    it did not make."""
    if data is None or isinstance(data, bool | int | str):
        return data
    if isinstance(data, list):
        return [_decode(item) for item in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise ValueError("not an encoded value")
    if "float" in data:
        return float(data["float"])
    if "tuple" in data:
        return tuple(_decode(item) for item in data["tuple"])
    if "map" in data:
        return {str(key): _decode(item) for key, item in data["map"].items()}
    cls = _CLASSES[data["class"]]
    return cls(**{str(key): _decode(item) for key, item in data["fields"].items()})


class ChunkCache:
    """The chunked files of the last build that used ``directory``; ``get`` and ``put`` by ``file_key``.
    ``damaged`` counts entries that failed their digest or did not decode (chunked again). This
    build's files are written to the next cache file as they come (a hit's stored bytes as they are),
    never held: ``save`` puts it in place, ``discard`` drops it."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / CHUNK_CACHE_FILE
        self._previous: EntryFile | None = read_entries(self.path, _FORMAT)
        self._writer: EntryWriter | None = None  # opened by the first get or put
        self._changed = False  # a file chunked afresh since the last save
        self._reused = 0  # the last build's files taken since the last save
        self.hits = 0
        self.misses = 0
        self.damaged = 0

    def get(self, key: str) -> ChunkedFile | None:
        """The cached chunked file of ``key``, or None (counted as a hit or a miss)."""
        found = self._load(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._reused += 1
        self._write().add(key, found[1])
        return found[0]

    def _write(self) -> EntryWriter:
        if self._writer is None:
            self._writer = EntryWriter(self.path, _FORMAT)
        return self._writer

    def _load(self, key: str) -> tuple[ChunkedFile, bytes] | None:
        if self._previous is None:
            return None
        damaged = self._previous.damaged
        data = self._previous.get(key)
        if data is None:
            self.damaged += self._previous.damaged - damaged
            return None
        try:
            chunked = _decode(json.loads(data))
            if not isinstance(chunked, ChunkedFile):
                raise TypeError(type(chunked).__name__)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
            log.warning("%s: entry %s does not decode (%r); chunking it again", self.path, key, error)
            self.damaged += 1
            return None
        return chunked, data

    def put(self, key: str, chunked: ChunkedFile) -> None:
        """Keep ``chunked`` under ``key`` for the next build (written now, put in place by ``save``)."""
        self._changed = True
        try:
            data = json.dumps(_encode(chunked), ensure_ascii=False, separators=(",", ":"))
        except _Unstorable as unstorable:  # chunked again next time
            log.debug("%s: not cached (holds a %s)", chunked.path, unstorable)
            return
        self._write().add(key, data.encode("utf-8", "surrogatepass"))

    def save(self) -> None:
        """Keep this build's files for the next one (only when something changed). Raises ``OSError``."""
        previous = self._previous
        unchanged = previous is not None and not self._changed and not self.damaged
        if unchanged and previous is not None and self._reused == len(previous.keys):
            self.discard()
            self._reused = 0
            return
        self._write().commit()
        self._writer = None
        if previous is not None:
            previous.close()
        self._previous = read_entries(self.path, _FORMAT)
        self._changed, self._reused = False, 0

    def discard(self) -> None:
        """Forget this build's files (a failed build): the last build's cache stays."""
        if self._writer is not None:
            self._writer.discard()
        self._writer = None
