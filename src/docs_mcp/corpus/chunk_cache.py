"""Chunked files kept between builds, by everything that decides them, so a rebuild chunks only what changed.

The key of a file is the sha256 of the chunking code (every source file of ``docs_mcp.parse`` and
``docs_mcp.chunk``, the docs-mcp and markdown-it-py versions), the file's path, its resolved settings
(strategy and metadata from its manifests) and its text. ``chunk_file`` is a pure function of those,
so a hit is exactly what chunking again would give.

Storage: entry files (``docs_mcp.entry_file``) in the build's cache folder
(``docs_mcp.indexing.build_cache``), each holding chunked files as JSON under their keys, with their
sha256: a damaged entry is chunked again from its source, a damaged or foreign file is ignored
(logged), never a failed build. JSON of the chunk dataclasses only (``_encode``): reading the cache
constructs those classes and nothing else, so a planted file cannot run code.

A build that chunked something new adds one segment holding only what it chunked (``chunks.delta-
<time>-<id>.entries``), written under a temporary name and renamed into place, so an update costs what
it chunked, not the cache (issue 34); ``chunks.entries`` is the base. An entry is a function of its key,
so any segment's entry of a key is right and a later one only replaces it; a crash leaves segments
that are whole or absent. The entries no build used since (edited files' old versions) are stale:
``save`` writes the base anew with the entries this build used and removes the deltas (compaction)
when asked to (a full build) or once the stale bytes pass ``MAX_STALE_SHARE`` of the segments' bytes
or the deltas number ``MAX_DELTAS``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import json
import logging
import time
import uuid
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
_DELTAS = "chunks.delta-*.entries"
# Past this share of the segments' bytes in entries no build used since, or this many deltas, the
# cache is compacted into one base (``ChunkCache.save``).
MAX_STALE_SHARE = 0.25
MAX_DELTAS = 16
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
    """The chunked files of the builds that used ``directory``; ``get`` and ``put`` by ``file_key``,
    ``keep`` an entry without reading it. ``damaged`` counts entries that failed their digest or did
    not decode (chunked again). What this build chunks is written to a new segment as it comes, never
    held: ``save`` puts it in place (and compacts), ``discard`` drops it."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / CHUNK_CACHE_FILE
        self._writer: EntryWriter | None = None  # this build's new entries, opened by the first put
        self.hits = 0
        self.misses = 0
        self.damaged = 0
        self._open()

    def _open(self) -> None:
        """Start afresh: the segments on disk are read when first needed (``_read``)."""
        self._opened: list[EntryFile] | None = None
        self._new: dict[str, str] = {}  # key -> digest of what this build put
        self._used: set[str] = set()  # keys of the segments this build used

    @property
    def _segments(self) -> list[EntryFile]:
        """The segments on disk: the base first, then the deltas oldest first. Read at first use, not
        when a build saves (a million files' entries are a few hundred MB of index it would not use)."""
        if self._opened is None:
            self._opened = []
            for path in [self.path, *sorted(self.path.parent.glob(_DELTAS))]:
                found = read_entries(path, _FORMAT)
                if found is not None:
                    self._opened.append(found)
        return self._opened

    def _where(self, key: str) -> tuple[int, str, int] | None:
        """The latest segment holding ``key`` (a later one replaces an entry): its number, the entry's
        digest and size. Asked of each segment, newest first, rather than kept as a table of every
        key: the segments' own indexes answer it."""
        segments = self._segments
        for number in range(len(segments) - 1, -1, -1):
            found = segments[number].entries.get(key)
            if found is not None:
                return number, found[2], found[1]
        return None

    def _total(self) -> int:
        """The bytes of every key's latest entry."""
        segments = self._segments
        total = 0
        for number, segment in enumerate(segments):
            newer = segments[number + 1 :]
            for key, (_, size, _) in segment.entries.items():
                if not any(key in later.entries for later in newer):
                    total += size
        return total

    def _close(self) -> None:
        for segment in self._opened or []:
            segment.close()
        self._opened = None

    def keep(self, key: str, digest: str | None = None) -> bool:
        """Keep the entry of ``key`` for the next build without reading it, when the cache holds one
        (and its sha256 is ``digest``, when given)."""
        found = self.digest(key)
        if found is None or (digest is not None and found != digest):
            return False
        if key not in self._new:
            self._used.add(key)
        return True

    def digest(self, key: str) -> str | None:
        """The sha256 of the entry of ``key`` (hex), None when the cache holds none."""
        if key in self._new:
            return self._new[key]
        found = self._where(key)
        return found[1] if found is not None else None

    def get(self, key: str) -> ChunkedFile | None:
        """The cached chunked file of ``key``, or None (counted as a hit or a miss)."""
        found = self._load(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        return found

    def _load(self, key: str) -> ChunkedFile | None:
        where = self._where(key) if key not in self._new else None
        if where is None:
            return None
        segment = self._segments[where[0]]
        damaged = segment.damaged
        data = segment.get(key)
        if data is None:
            self.damaged += segment.damaged - damaged
            return None
        try:
            chunked = _decode(json.loads(data))
            if not isinstance(chunked, ChunkedFile):
                raise TypeError(type(chunked).__name__)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as error:
            log.warning("%s: entry %s does not decode (%r); chunking it again", self.path, key, error)
            self.damaged += 1
            return None
        self._used.add(key)
        return chunked

    def put(self, key: str, chunked: ChunkedFile) -> None:
        """Keep ``chunked`` under ``key`` for the next build (written now, put in place by ``save``)."""
        try:
            data = json.dumps(_encode(chunked), ensure_ascii=False, separators=(",", ":"))
        except _Unstorable as unstorable:  # chunked again next time
            log.debug("%s: not cached (holds a %s)", chunked.path, unstorable)
            return
        if self._writer is None:
            name = f"chunks.delta-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.entries"
            self._writer = EntryWriter(self.path.with_name(name), _FORMAT)
        self._new[key] = self._writer.add(key, data.encode("utf-8", "surrogatepass"))
        self._used.discard(key)

    def save(self, compact: bool = False) -> None:
        """Keep this build's new entries for the next one; write the base anew with the entries this
        build used when ``compact`` (and anything is stale) or past the stale bounds. Raises ``OSError``."""
        first = not self._segments
        if self._writer is not None:
            self._writer.commit()
            if first:  # the first segment is the base
                self._writer.path.replace(self.path)
            self._writer = None
        if not first:
            kept = sum(found[2] for key in self._used if (found := self._where(key)) is not None)
            total = self._total()
            stale = total - kept
            deltas = sum(segment.path != self.path for segment in self._segments) + bool(self._new)
            if (compact and (stale or deltas)) or stale > MAX_STALE_SHARE * total or deltas > MAX_DELTAS:
                self._compact()
        self._close()
        self._open()  # the segments read again when next needed (after a build's save: never)

    def _compact(self) -> None:
        """The base written anew with the entries this build used, the deltas removed after."""
        segments = [*self._segments, *self._read_new()]
        where = {key: number for number, segment in enumerate(segments) for key in segment.entries}
        with EntryWriter(self.path, _FORMAT) as writer:
            for key in [*self._used, *self._new]:
                number = where.get(key)
                data = segments[number].get(key) if number is not None else None
                if data is not None:  # a damaged entry is left out: made again when needed
                    writer.add(key, data)
        for segment in segments:
            segment.close()
            if segment.path != self.path:
                segment.path.unlink(missing_ok=True)
        self._opened = []

    def _read_new(self) -> list[EntryFile]:
        """The deltas on disk this object has not read (the one ``save`` just wrote)."""
        known = {segment.path for segment in self._segments}
        found = [read_entries(path, _FORMAT) for path in sorted(self.path.parent.glob(_DELTAS))]
        return [segment for segment in found if segment is not None and segment.path not in known]

    def discard(self) -> None:
        """Forget this build's new entries (a failed build): the cache stays as it was."""
        if self._writer is not None:
            self._writer.discard()
        self._writer = None
