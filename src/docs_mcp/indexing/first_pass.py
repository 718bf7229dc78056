"""A build's first pass at the cost of what changed: each page's share of it kept for the next build.

The first pass (``pipeline._scan``) walks every page and gathers what the manifest, the copy groups
and an update need (``tally``, ``ledger.FileLedger``). Of each page that is a function of the page
and of what ``CorpusScan.context`` digests (code, manifests, settings): its ``FileSummary`` (chunk
count, rows' key, facet values, the least sections ``pick_example`` reads, findings, and its
sections' copy-block and id hashes). A build records them with each page's stat and content digest
(``PassRecord``, ``first-pass.npz`` in the build's cache); the next build under the same context hands
a page whose stat is unchanged (or whose chunk cache key is) on as a ``KnownFile`` (``corpus.scan``):
it is not read, its chunks are not decoded, not spilled (``FileSpill.add_known``), and its sections
are not set aside (``CopyFinder.add_known``); its summary counts as the page would. What reads its
chunks later (an update rewriting its rows, the copy groups of a block it is in, a full build's rows)
reads them from the chunk cache then (``CorpusScan.chunked``).

The record is a numpy archive read without pickles (the pages' paths and stats, the sections' hashes
as an int64 array) and beside it the pages' rows as JSON lines (``first-pass.lines``), which neither
the build that writes them nor the one that reads them holds: they wait in a temporary file, and a
row is read from the file when its page is looked up (about 1 KB a page, half a GB at a million
chunks). Both are written under temporary names and renamed, after the index is in place, the lines
first (the archive names their digest); a record that does not read, or was made under another
context or code, is ignored (logged): the pass reads every page, as a first build does.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import zipfile
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

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
LINES_FILE = "first-pass.lines"
_FORMAT = "docs-mcp first pass 2"

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


def _payload_digest(*parts: bytes | np.ndarray[Any, Any]) -> str:
    """The sha256 of ``parts`` (bytes, or contiguous arrays as their bytes: not copied), each after
    its length."""
    digest = hashlib.sha256()
    for part in parts:
        view = memoryview(part.data if isinstance(part, np.ndarray) else part).cast("B")
        digest.update(len(view).to_bytes(8, "big"))
        digest.update(view)
    return digest.hexdigest()


def _section(data: Any) -> Section | None:
    return None if data is None else (str(data[0]), str(data[1]), tuple(str(part) for part in data[2]))


def _findings(data: Any) -> tuple[Finding, ...]:
    return tuple(
        Finding(str(path), int(line), severity, str(message), str(rule))
        for path, line, severity, message, rule in data
    )


# A page's row in the record, one JSON line: what ``KnownFile`` and ``FileSummary`` are made of.
_DIGEST, _KEY, _ENTRY, _ROWS, _ROW_KEY, _URLS, _EXPLICIT, _FINDINGS, _FACETS, _LEAST, _LEAST_SUB = range(11)
_NO_STATUS = (-1, -1, -1, -1, -1)


class PassRecord:
    """The last build's record of its pages (``KnownFiles`` for ``CorpusScan.files``); empty when
    there is none usable for ``context``. Its rows stay in their file (``lines``, open), each read and
    parsed when its page is looked up; ``close`` closes it."""

    def __init__(
        self,
        paths: list[str],
        statuses: np.ndarray[Any, Any],
        lines: BinaryIO | None,
        ends: np.ndarray[Any, Any],
        counts: np.ndarray[Any, Any],
        sections: np.ndarray[Any, Any],
    ) -> None:
        self._index = {path: number for number, path in enumerate(paths)}
        self._statuses = statuses  # (pages, 5): ``Status``, -1s for none
        self._lines = lines
        self._ends = np.concatenate([np.zeros(1, np.int64), ends])  # where each page's row ends
        if len(self._ends) != len(paths) + 1:
            raise ValueError("rows do not add up")
        self._starts = np.concatenate([np.zeros(1, np.int64), np.cumsum(counts)])
        if int(self._starts[-1]) != len(sections):
            raise ValueError("sections do not add up")
        self._sections = sections
        self._parsed: tuple[int, list[Any]] = (-1, [])

    @staticmethod
    def empty() -> PassRecord:
        none = np.zeros(0, np.int64)
        return PassRecord([], np.zeros((0, 5), np.int64), None, none, none, np.zeros((0, 4), np.int64))

    @staticmethod
    def load(cache_dir: Path, context: str) -> PassRecord:
        """The record in ``cache_dir`` made under ``context`` by this code; else an empty one."""
        path = cache_dir / RECORD_FILE
        lines: BinaryIO | None = None
        try:
            with path.open("rb") as handle, np.load(handle, allow_pickle=False) as read:
                parts = {name: np.asarray(read[name]) for name in _PARTS}
                digest = bytes(read["digest"]).decode()
            lines = (cache_dir / LINES_FILE).open("rb")
            if digest != _payload_digest(_file_digest(lines), *(parts[name] for name in _PARTS)):
                raise ValueError("does not match its digest")
            header = json.loads(parts["header"].tobytes())
            if header.get("format") != _fingerprint() or header.get("context") != context:
                log.info("%s is another build's record: every page is read", path)
                lines.close()
                return PassRecord.empty()
            return PassRecord(
                [str(page) for page in header["paths"]],
                parts["statuses"].astype(np.int64).reshape(-1, 5),
                lines,
                parts["ends"].astype(np.int64),
                parts["counts"].astype(np.int64),
                parts["sections"].astype(np.int64).reshape(-1, 4),
            )
        except FileNotFoundError:
            if lines is not None:
                lines.close()
            return PassRecord.empty()
        except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError, zipfile.BadZipFile) as error:
            if lines is not None:
                lines.close()
            log.warning("%s does not read (%r): every page is read", path, error)
            return PassRecord.empty()

    def close(self) -> None:
        """Close the rows' file. Raises nothing."""
        if self._lines is not None:
            self._lines.close()

    def _line(self, number: int) -> bytes:
        start, end = int(self._ends[number]), int(self._ends[number + 1])
        if self._lines is None:
            raise ValueError("no rows")
        line = os.pread(self._lines.fileno(), end - start, start)
        if len(line) != end - start:
            raise ValueError("the rows' file is shorter than its record")
        return line

    def _row(self, number: int) -> list[Any]:
        if self._parsed[0] != number:  # a page is looked up, then summed up: parsed once
            row = json.loads(self._line(number))
            if not isinstance(row, list) or len(row) != _LEAST_SUB + 1:
                raise ValueError("not a row of the record")
            self._parsed = (number, row)
        return self._parsed[1]

    def by_status(self, path: str, status: Status) -> KnownFile | None:
        """See ``corpus.scan.KnownFiles``."""
        number = self._index.get(path)
        if number is None or tuple(self._statuses[number].tolist()) != status:
            return None
        return self._known(path, number, status)

    def by_key(self, path: str, key: str) -> KnownFile | None:
        """See ``corpus.scan.KnownFiles``."""
        number = self._index.get(path)
        if number is None or self._row(number)[_KEY] != key:
            return None
        return self._known(path, number, None)

    def _known(self, path: str, number: int, status: Status | None) -> KnownFile:
        row = self._row(number)
        findings = _findings(row[_FINDINGS])
        return KnownFile(
            path,
            row[_KEY],
            row[_DIGEST],
            status,
            findings,
            bool(row[_EXPLICIT]),
            int(row[_ROWS]),
            row[_ENTRY],
        )

    def summary(self, path: str) -> FileSummary:
        """The summary recorded of the page at ``path`` (one ``by_status`` or ``by_key`` gave)."""
        number = self._index[path]
        row = self._row(number)
        return FileSummary(
            rows=int(row[_ROWS]),
            row_key=str(row[_ROW_KEY]),
            urls=bool(row[_URLS]),
            facets=tuple((str(facet), str(value)) for facet, value in row[_FACETS]),
            least=_section(row[_LEAST]),
            least_subsection=_section(row[_LEAST_SUB]),
            sections=self._sections[self._starts[number] : self._starts[number + 1]].tolist(),
        )

    def row(self, path: str) -> tuple[bytes, np.ndarray[Any, Any]]:
        """What the record holds of ``path`` as it is written (its JSON line), and its sections."""
        number = self._index[path]
        return self._line(number), self._sections[self._starts[number] : self._starts[number + 1]]


_PARTS = ("header", "statuses", "ends", "counts", "sections")


class RecordWriter:
    """This build's record of its pages, gathered as the pass goes (the rows in a temporary file in
    ``directory``); ``save`` after the swap."""

    def __init__(self, context: str, directory: Path) -> None:
        self._context = context
        self._paths: list[str] = []
        self._statuses = array("q")
        self._counts = array("q")
        directory.mkdir(parents=True, exist_ok=True)
        self._lines: BinaryIO = tempfile.TemporaryFile(dir=directory, prefix="first-pass-")  # noqa: SIM115 (closed by save)
        self._ends = array("q")
        self._end = 0
        self._sections = array("q")
        self._parts: list[np.ndarray[Any, Any]] = []  # the sections, in order, a part at a time

    def keep(self, path: str, line: bytes, sections: np.ndarray[Any, Any], status: Status | None) -> None:
        """Note a known page by its last ``line`` and ``sections`` (``PassRecord.row``), its stat now."""
        self._flush()
        self._note(path, status, line, len(sections))
        self._parts.append(sections)

    def _note(self, path: str, status: Status | None, line: bytes, count: int) -> None:
        self._paths.append(path)
        self._statuses.extend(status if status is not None else _NO_STATUS)
        self._lines.write(line)
        self._end += len(line)
        self._ends.append(self._end)
        self._counts.append(count)

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
        row = [
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
        ]
        line = json.dumps(row, separators=(",", ":")).encode() + b"\n"  # JSON escapes every newline
        self._note(path, page.status, line, len(summary.sections))
        for section in summary.sections:
            self._sections.extend(section)
        if len(self._sections) > 2**16:
            self._flush()

    def discard(self) -> None:
        """Drop the rows gathered (a failed build's; after ``save``, nothing). Raises nothing."""
        self._lines.close()

    def save(self, cache_dir: Path) -> None:
        """Write the record into ``cache_dir``. Never raises: a record not written costs the next
        build a pass over every page (logged)."""
        path = cache_dir / RECORD_FILE
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        lines = cache_dir / LINES_FILE
        lines_temporary = lines.with_name(f".{lines.name}.{os.getpid()}.tmp")
        header = {"format": _fingerprint(), "context": self._context, "paths": self._paths}
        self._flush()
        # Each part made once and hashed and written as it is (no copy: a million pages' parts are
        # a hundred MB at the end of a build).
        parts: dict[str, np.ndarray[Any, Any]] = {
            "header": np.frombuffer(json.dumps(header, separators=(",", ":")).encode(), dtype=np.uint8),
            "statuses": np.frombuffer(self._statuses, dtype=np.int64),
            "ends": np.frombuffer(self._ends, dtype=np.int64),
            "counts": np.frombuffer(self._counts, dtype=np.int64),
            "sections": np.concatenate([np.zeros(0, np.int64), *(part.reshape(-1) for part in self._parts)]),
        }
        self._parts = []
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
            self._lines.flush()
            self._lines.seek(0)
            with lines_temporary.open("wb") as handle:
                shutil.copyfileobj(self._lines, handle, 1 << 20)
            with lines_temporary.open("rb") as handle:
                written = _file_digest(handle)
            digest = _payload_digest(written, *(parts[name] for name in _PARTS)).encode()
            with temporary.open("wb") as handle:
                np.savez(
                    handle,
                    digest=np.frombuffer(digest, dtype=np.uint8),
                    header=parts["header"],
                    statuses=parts["statuses"],
                    ends=parts["ends"],
                    counts=parts["counts"],
                    sections=parts["sections"],
                )
            os.replace(lines_temporary, lines)  # first: the archive names the lines' digest
            os.replace(temporary, path)
        except OSError as error:
            log.warning("could not record the pages in %s (%s); the next build reads them all", path, error)
            temporary.unlink(missing_ok=True)
            lines_temporary.unlink(missing_ok=True)
        finally:
            self._lines.close()


def _file_digest(handle: BinaryIO) -> bytes:
    """The sha256 of what ``handle`` reads from its start, streamed."""
    handle.seek(0)
    digest = hashlib.sha256()
    while block := handle.read(1 << 20):
        digest.update(block)
    return digest.digest()


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
    record = RecordWriter(scan.context, chunk_cache.path.parent)
    pages: Iterator[ScannedFile | KnownFile] = scan.files(on_file, previous)
    try:
        for page in pages:
            if isinstance(page, KnownFile):
                count(page, previous.summary(page.path), None)
                record.keep(page.path, *previous.row(page.path), page.status)
            else:
                summary = summarize(page)
                count(page, summary, page.file.chunks)
                record.add(page, summary, chunk_cache.digest(page.key) or "" if page.key else "")
    except BaseException:
        record.discard()
        raise
    finally:
        previous.close()
    return record
