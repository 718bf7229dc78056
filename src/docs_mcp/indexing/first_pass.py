"""A build's first pass at the cost of what changed: each page's share of it kept for the next build.

The first pass (``pipeline._scan``) walks every page and gathers what the manifest, the copy groups
and an update need (``tally``, ``incremental.FileLedger``). Of each page that is a function of the page
and of what ``CorpusScan.context`` digests (code, manifests, settings): its ``FileSummary`` (chunk
count, rows' key, facet values, the least sections ``pick_example`` reads, findings, and its
sections' copy-block and id hashes). A build records them with each page's stat and content digest
(``PassRecord``, ``first-pass.npz`` in the build's cache); the next build under the same context hands
a page whose stat is unchanged (or whose chunk cache key is) on as a ``KnownFile`` (``corpus.scan``):
it is not read, its chunks are not decoded, not spilled (``FileSpill.add_known``), and its sections
are not set aside (``CopyFinder.add_known``); its summary counts as the page would. What reads its
chunks later (an update rewriting its rows, the copy groups of a block it is in, a full build's rows)
reads them from the chunk cache then (``CorpusScan.chunked``).

The record is a numpy archive read without pickles: the files as JSON bytes, the sections' hashes as
an int64 array. It is written under a temporary name and renamed, after the index is in place; a
record that does not read, or was made under another context or code, is ignored (logged): the pass
reads every page, as a first build does.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import logging
import os
import zipfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import docs_mcp
from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.chunk_cache import ChunkCache
from docs_mcp.corpus.copies import section_hashes
from docs_mcp.corpus.known_pages import KnownFile, Status
from docs_mcp.corpus.scan import CorpusScan, ScannedFile
from docs_mcp.errors import Finding
from docs_mcp.indexing.row_cache import row_key

__all__ = ["RECORD_FILE", "FileSummary", "PassRecord", "RecordWriter", "summarize"]

log = logging.getLogger(__name__)

RECORD_FILE = "first-pass.npz"
_FORMAT = "docs-mcp first pass 1"

Section = tuple[str, str, tuple[str, ...]]  # id, heading, breadcrumb: what ``pick_example`` reads


@cache
def _fingerprint() -> str:
    """The code that makes a summary of a page and counts it: this package's modules."""
    digest = hashlib.sha256(f"{_FORMAT}\0{docs_mcp.__version__}\0".encode())
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class FileSummary:
    """What the first pass counts of one page (see the module's docstring)."""

    rows: int
    row_key: str  # ``row_cache.row_key``
    urls: bool  # some chunk has a page URL
    facets: tuple[tuple[str, str], ...]  # (facet, value) of its chunks, distinct, sorted
    least: Section | None  # its least section, and its least with a breadcrumb and a short heading
    least_subsection: Section | None
    sections: Sequence[tuple[int, int, int, int]]  # per chunk with text: its place, section_hashes


def summarize(scanned: ScannedFile) -> FileSummary:
    """The summary of a page the pass chunked (or took from the chunk cache)."""
    chunks = scanned.file.chunks
    facets = {(key, str(value)) for chunk in chunks for key, value in chunk.metadata.items()}
    every = [(chunk.id, chunk.heading, tuple(chunk.breadcrumb)) for chunk in chunks]
    short = [
        section
        for section, chunk in zip(every, chunks, strict=True)
        if chunk.breadcrumb and 2 <= len(str(chunk.heading).split()) <= 6
    ]
    sections = []
    for place, chunk in enumerate(chunks):
        hashes = section_hashes(chunk)
        if hashes is not None:
            sections.append((place, *hashes))
    return FileSummary(
        rows=len(chunks),
        row_key=row_key(scanned),
        urls=bool(scanned.urls),
        facets=tuple(sorted(facets)),
        least=min(every, default=None),
        least_subsection=min(short, default=None),
        sections=sections,
    )


def _payload_digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _section(data: Any) -> Section | None:
    return None if data is None else (str(data[0]), str(data[1]), tuple(str(part) for part in data[2]))


def _findings(data: Any) -> tuple[Finding, ...]:
    return tuple(
        Finding(str(path), int(line), severity, str(message), str(rule))
        for path, line, severity, message, rule in data
    )


class PassRecord:
    """The last build's record of its pages (``KnownFiles`` for ``CorpusScan.files``); empty when
    there is none usable for ``context``."""

    def __init__(self, files: dict[str, list[Any]], sections: np.ndarray[Any, Any]) -> None:
        self._files = files  # path -> its row (``RecordWriter.add``), its first section's number last
        self._sections = sections

    @staticmethod
    def load(cache_dir: Path, context: str) -> PassRecord:
        """The record in ``cache_dir`` made under ``context`` by this code; else an empty one."""
        path = cache_dir / RECORD_FILE
        empty = PassRecord({}, np.zeros((0, 4), np.int64))
        try:
            with path.open("rb") as handle, np.load(handle, allow_pickle=False) as read:
                encoded, sections = bytes(read["files"]), np.asarray(read["sections"], dtype=np.int64)
                if bytes(read["digest"]).decode() != _payload_digest(encoded, sections.tobytes()):
                    raise ValueError("does not match its digest")
            with _collector_paused():  # many small objects and no cycle among them
                header = json.loads(encoded)
                sections = sections.reshape(-1, 4)
                if header.get("format") != _fingerprint() or header.get("context") != context:
                    log.info("%s is another build's record: every page is read", path)
                    return empty
                files: dict[str, list[Any]] = {}
                start = 0
                for row in header["files"]:
                    count = int(row[-1])
                    row.append(start)
                    files[str(row[0])] = row
                    start += count
            if start != len(sections):
                raise ValueError("sections do not add up")
            return PassRecord(files, sections)
        except FileNotFoundError:
            return empty
        except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError, zipfile.BadZipFile) as error:
            log.warning("%s does not read (%r): every page is read", path, error)
            return empty

    def by_status(self, path: str, status: Status) -> KnownFile | None:
        """See ``corpus.scan.KnownFiles``."""
        row = self._files.get(path)
        return self._known(row) if row is not None and row[1] == list(status) else None

    def by_key(self, path: str, key: str) -> KnownFile | None:
        """See ``corpus.scan.KnownFiles``."""
        row = self._files.get(path)
        return self._known(row) if row is not None and row[3] == key else None

    @staticmethod
    def _known(row: list[Any]) -> KnownFile:
        path, status, digest, key, entry, rows, _, _, explicit, findings = row[:10]
        found = tuple(status) if status is not None else None
        return KnownFile(path, key, digest, found, _findings(findings), bool(explicit), int(rows), entry)

    def summary(self, path: str) -> FileSummary:
        """The summary recorded of the page at ``path`` (one ``by_status`` or ``by_key`` gave)."""
        row = self._files[path]
        _, _, _, _, _, rows, key, urls, _, _, facets, least, least_subsection, count, start = row
        return FileSummary(
            rows=int(rows),
            row_key=str(key),
            urls=bool(urls),
            facets=tuple((str(facet), str(value)) for facet, value in facets),
            least=_section(least),
            least_subsection=_section(least_subsection),
            sections=self._sections[start : start + count].tolist(),
        )

    def row(self, path: str) -> tuple[list[Any], np.ndarray[Any, Any]]:
        """What the record holds of ``path`` as it is written, and its sections' rows."""
        row = self._files[path]
        return row[:-1], self._sections[row[-1] : row[-1] + row[-2]]


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused: building many objects that hold no cycle would run it
    over every object of the build again and again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class RecordWriter:
    """This build's record of its pages, gathered as the pass goes; ``save`` after the swap."""

    def __init__(self, context: str) -> None:
        self._context = context
        self._files: list[list[Any]] = []
        self._sections = array("q")
        self._parts: list[np.ndarray[Any, Any]] = []  # sections of the rows ``keep`` took as they were

    def keep(self, row: list[Any], sections: np.ndarray[Any, Any], status: Status | None) -> None:
        """Note a known page by its last ``row`` and ``sections`` (``PassRecord.row``), its stat now."""
        self._flush()
        self._files.append([row[0], list(status) if status is not None else None, *row[2:]])
        self._parts.append(sections)

    def _flush(self) -> None:
        if self._sections:
            self._parts.append(np.array(self._sections, dtype=np.int64).reshape(-1, 4))
            self._sections = array("q")

    def add(self, page: ScannedFile | KnownFile, summary: FileSummary, entry: str) -> None:
        """Note ``page`` and its ``summary``; ``entry``: the sha256 of its chunk cache entry (a page
        without one, or without a key, is not recorded: the next build reads it)."""
        if not page.key or not entry:
            return
        if isinstance(page, ScannedFile):
            path, findings, explicit = page.file.path, page.findings, page.file.strategy_explicit
        else:
            path, findings, explicit = page.path, page.findings, page.explicit
        if any(type(finding) is not Finding for finding in findings):
            return  # a summary finding of the whole folder is not a page's: read it again
        self._files.append(
            [
                path,
                list(page.status) if page.status is not None else None,
                page.digest,
                page.key,
                entry,
                summary.rows,
                summary.row_key,
                summary.urls,
                explicit,
                [[f.path, f.line, f.severity, f.message, f.rule] for f in findings],
                [list(pair) for pair in summary.facets],
                summary.least,
                summary.least_subsection,
                len(summary.sections),
            ]
        )
        for section in summary.sections:
            self._sections.extend(section)
        if len(self._sections) > 2**16:
            self._flush()

    def save(self, cache_dir: Path) -> None:
        """Write the record into ``cache_dir``. Never raises: a record not written costs the next
        build a pass over every page (logged)."""
        path = cache_dir / RECORD_FILE
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        header = {"format": _fingerprint(), "context": self._context, "files": self._files}
        encoded = json.dumps(header, separators=(",", ":")).encode()
        self._flush()
        sections = np.concatenate([np.zeros(0, np.int64), *(part.reshape(-1) for part in self._parts)])
        digest = _payload_digest(encoded, sections.tobytes()).encode()
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            with temporary.open("wb") as handle:
                np.savez(
                    handle,
                    files=np.frombuffer(encoded, dtype=np.uint8),
                    sections=sections,
                    digest=np.frombuffer(digest, dtype=np.uint8),
                )
            os.replace(temporary, path)
        except OSError as error:
            log.warning("could not record the pages in %s (%s); the next build reads them all", path, error)
            temporary.unlink(missing_ok=True)


Counter = Callable[[ScannedFile | KnownFile, FileSummary, Sequence[Chunk] | None], None]


def walk(
    scan: CorpusScan,
    chunk_cache: ChunkCache,
    previous: PassRecord,
    count: Counter,
    on_file: Callable[[str], None] | None = None,
) -> RecordWriter:
    """The first pass over ``scan``'s pages, pages ``previous`` records handed on as known: each page
    with its summary and, when it was read, its chunks, to ``count``. Returns this build's record."""
    record = RecordWriter(scan.context)
    pages: Iterator[ScannedFile | KnownFile] = scan.files(on_file, previous)
    for page in pages:
        if isinstance(page, KnownFile):
            count(page, previous.summary(page.path), None)
            record.keep(*previous.row(page.path), page.status)
        else:
            summary = summarize(page)
            count(page, summary, page.file.chunks)
            record.add(page, summary, chunk_cache.digest(page.key) or "" if page.key else "")
    return record
