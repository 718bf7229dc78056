"""The one walk over a docs folder, file by file: what ``load_corpus`` collects and ``build`` streams.

``CorpusScan`` reads the manifests, the site and the templates first (they are few), then reads,
chunks and finishes the pages in path order, a window of about ``WINDOW_BYTES`` of text at a time,
handing each file on as it is done (``files``): the caller decides what to keep. Everything that
is about the whole folder (findings, facets, the content hash, whether any page gave a chunk) is
gathered on the way and is complete once ``files`` is exhausted (``corpus``). A build of a million
chunks holds one window of files, never the corpus (issue 34).

A build hands ``files`` what the last build recorded of each page (``known_pages``): a page whose stat
is the one recorded is handed on as a ``KnownFile``, not read (its chunks, read when needed:
``chunked``).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.chunk.chunk_pool import ChunkPool, Job
from docs_mcp.chunk.chunking import ChunkedFile, chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.chunk.kinds import with_kinds
from docs_mcp.corpus.chunk_cache import KINDS_STAGE, ChunkCache, file_key
from docs_mcp.corpus.copy_rules import declared_rules
from docs_mcp.corpus.docs_manifest import MANIFEST_NAME, DocsManifest, parse_manifest
from docs_mcp.corpus.facets import SettingsResolver, check_declarations, facets_of
from docs_mcp.corpus.files import (
    NOT_REGULAR_RULE,
    FileTooLarge,
    NotRegularFile,
    decode_utf8,
    read_regular_file,
)
from docs_mcp.corpus.known_pages import (
    ContentHash,
    KnownFile,
    KnownFiles,
    Status,
    context_digest,
    page_status,
    sha256_hex,
)
from docs_mcp.corpus.prompts import read_templates
from docs_mcp.corpus.sdk_layout import fences_of, infer_layout, layout_manifests
from docs_mcp.corpus.site import detect_site
from docs_mcp.corpus.site_pages import SitePages
from docs_mcp.corpus.sites import MDX_GENERATOR
from docs_mcp.corpus.sites.base import generator_of
from docs_mcp.corpus.walk import DocsTree
from docs_mcp.errors import ConfigError, Finding
from docs_mcp.limits import MAX_FILE_BYTES

__all__ = [
    "PARALLEL_THRESHOLD",
    "WINDOW_BYTES",
    "ContentHash",
    "CorpusScan",
    "DocsFiles",
    "KnownFile",
    "KnownFiles",
    "ScannedFile",
    "worker_count",
]

# Below this many files helper processes cost more to start (their imports) than they save.
PARALLEL_THRESHOLD = 400
# Text chunked at once: a window's texts, their chunks and the helpers' copies are what the walk
# holds, whatever the size of the folder.
WINDOW_BYTES = 16 * 2**20


@dataclass(frozen=True)
class ScannedFile:
    """One page, chunked and finished (site pages, kinds), as ``CorpusScan.files`` hands it on."""

    file: ChunkedFile
    key: str  # its chunk cache key (``chunk_cache.file_key``); "" without a cache
    urls: dict[str, str] = field(default_factory=dict)  # its chunks' page URLs (a site's)
    digest: str = ""  # the sha256 of its bytes (hex): what the content hash counts of it
    status: Status | None = None  # its stat before it was read; None: not to be trusted next time
    findings: tuple[Finding, ...] = ()  # every finding about it (its chunker's, its declarations')


def worker_count(workers: int | None, files: int) -> int:
    """The chunking processes for ``files`` files: ``workers`` when given, else one per CPU (at most
    4) from ``PARALLEL_THRESHOLD`` files on, else this process alone."""
    if workers is not None:
        return max(1, workers)
    return min(os.cpu_count() or 1, 4) if files >= PARALLEL_THRESHOLD else 1


@dataclass(frozen=True)
class DocsFiles:
    """The docs folder, with the overlay's contents in place of (or beside) its files."""

    root: Path
    overlay: Mapping[str, bytes]

    def read(self, path: str, findings: list[Finding], rule: str) -> bytes | None:
        """The bytes of ``path``, or None after a finding: unreadable, not a regular file (a FIFO
        or device swapped in after the walk), or over ``MAX_FILE_BYTES``."""
        if path in self.overlay:
            return self.overlay[path]
        try:
            return read_regular_file(self.root / path, MAX_FILE_BYTES)
        except NotRegularFile as error:
            findings.append(Finding(path, 0, "warning", f"{error}; not indexed", NOT_REGULAR_RULE))
        except FileTooLarge as error:
            message = f"{error} (MAX_FILE_BYTES): split it into several pages"
            findings.append(Finding(path, 0, "error", message, "file-too-large"))
        except OSError as error:
            reason = error.strerror or str(error)
            message = f"cannot read file: {reason}; fix or remove it"
            findings.append(Finding(path, 0, "error", message, rule))
        return None


class CorpusScan:
    """The walk of ``load_corpus`` (see there) over ``tree``: construct, iterate ``files`` once, then
    read what it gathered (``findings``, ``content_hash``, ...)."""

    def __init__(
        self,
        source: DocsFiles,
        tree: DocsTree,
        workers: int | None,
        cache: ChunkCache | None,
        site_config: Path | None = None,
    ) -> None:
        self.source, self.root, self.cache, self._workers = source, source.root, cache, workers
        self.findings: list[Finding] = [
            Finding(
                p, 0, "warning", "symbolic link points outside the docs root; not indexed", "outside-root"
            )
            for p in tree.outside
        ]
        self.findings.extend(
            Finding(p, 0, "warning", f"{kind}, not a regular file; not indexed", NOT_REGULAR_RULE)
            for p, kind in tree.special
        )
        early: dict[str, bytes] = {}  # manifests and templates: few, hashed among the pages
        self.manifests = _load_manifests(source, tree.manifests, self.findings, early)
        root_manifest = self.manifests.get("")
        site = detect_site(self.root, site_config, root_manifest.site if root_manifest is not None else None)
        self.findings.extend(site.findings)
        if not site.recognised and tree.mdx:
            site = dataclasses.replace(site, generator=MDX_GENERATOR)  # MDX is read as MDX anywhere
        self.site = site
        self.generator = generator_of(site)
        self.pages = SitePages(site, self.root) if site.recognised or site.url_template else None
        by_suffix = {".md": tree.markdown, ".mdx": tree.mdx, ".rst": tree.rst}
        self.paths = sorted(
            path for suffix in self.generator.extensions for path in by_suffix.get(suffix, [])
        )
        self.mdx_unread = tree.mdx if tree.mdx and ".mdx" not in self.generator.extensions else []
        # The manifests' copy_of and kind rules, resolved against the pages (copy_rules.py).
        self.rules = declared_rules(self.manifests, self.paths)
        self.findings.extend(self.rules.findings)
        self.prompts, prompt_findings = read_templates(
            tree.templates, lambda path, found: _template_text(source, path, found, early)
        )
        self.findings.extend(prompt_findings)
        self._hash = ContentHash(early)
        # A folder without any manifest gets the facets its layout says (what ``fix`` would propose).
        self.layout = self._layout() if not self.manifests else {}
        self.governing = {**self.layout, **self.manifests}
        # A digest of all that decides a page's chunks and findings but the page: what the last
        # build's record of its pages must have been made under to be used (``KnownFiles``).
        self.context = context_digest(early, self.governing, type(self.generator).__name__)
        self.facets = facets_of(self.governing.values())
        self._resolver = SettingsResolver(self.governing)
        self.any_chunks = False
        self.defaulted: list[str] = []  # files that declare no strategy
        self.content_hash = ""  # set once ``files`` is exhausted
        self._known: KnownFiles | None = None  # set by ``files``
        self._remade: dict[str, ChunkedFile] = {}  # known pages chunked again (``chunked``): a few

    def files(
        self, on_file: Callable[[str], None] | None = None, known: KnownFiles | None = None
    ) -> Iterator[ScannedFile | KnownFile]:
        """Every page in path order, chunked (from the cache where it holds the file) and finished;
        ``on_file`` is told each path as its chunks are ready. With ``known`` (and a cache, plain
        pages and no overlay), a page the last build recorded as it is now is a ``KnownFile``. Once only.
        """
        usable = self.cache is not None and self.pages is None and not self.source.overlay
        self._known = known if usable else None
        started = time.time_ns()
        pool: ChunkPool | None = None
        if self.cache is None:  # started now so that the helpers' start-up overlaps with reading
            pool = ChunkPool(worker_count(self._workers, len(self.paths)))
        try:
            window: list[_Read] = []
            size = 0
            for path in self.paths:
                status = page_status(self.root / path, started) if self._known is not None else None
                same = self._known.by_status(path, status) if self._known and status else None
                if same is not None and self.cache is not None and self.cache.keep(same.key, same.entry):
                    if window:
                        pool = yield from self._window(window, pool, on_file, False)
                        window, size = [], 0
                    yield self._known_file(same, on_file)
                    continue
                read = self._read(path, self.findings, hashed=True)
                if read is not None:
                    window.append(_Read(read[0], path, read[1], status))
                    size += len(read[0])
                if window and size >= WINDOW_BYTES:
                    pool = yield from self._window(window, pool, on_file, False)
                    window, size = [], 0
            if window:
                pool = yield from self._window(window, pool, on_file, True)
        finally:
            if pool is not None:
                pool.close()
        self.content_hash = self._hash.hexdigest()

    def _known_file(
        self, known: KnownFile, on_file: Callable[[str], None] | None, read: bool = False
    ) -> KnownFile:
        """Count a page as the last build found it (``read``: its bytes are counted already)."""
        if not read:
            self._hash.add(known.path, known.digest)
        self.any_chunks = self.any_chunks or known.chunks > 0
        self.findings.extend(known.findings)
        if not known.explicit:
            self.defaulted.append(known.path)
        if on_file is not None:
            on_file(known.path)
        return known

    def chunked(self, path: str, key: str) -> ChunkedFile:
        """The chunks of the page ``path`` handed on as a ``KnownFile`` of ``key``: from the cache, or
        (its entry lost or damaged) chunked again from the page, which must not have changed.

        Raises ``ConfigError`` when the page changed since ``files`` handed it on."""
        found = self._remade.get(key) or (self.cache.get(key) if self.cache is not None else None)
        if found is not None:
            return found
        read = self._read(path, [], hashed=False)
        settings = self._settings(path)
        if read is None or file_key(path, read[0], settings, KINDS_STAGE) != key:
            raise ConfigError(f"{path} changed while the docs were built; build again")
        chunked = chunk_file(read[0], path, settings)
        chunked = dataclasses.replace(chunked, chunks=with_kinds(chunked.chunks))
        if self.cache is not None:
            self.cache.put(key, chunked)
        self._remade[key] = chunked  # the cache gives it back only to the next build
        return chunked

    def _read(self, path: str, findings: list[Finding], hashed: bool) -> tuple[str, str] | None:
        """A page's text, made plain for its site, and the sha256 of its bytes (``hashed``: counted
        in the content hash; else ""); None when it is unreadable or a partial."""
        data = self.source.read(path, findings, rule="unreadable-file")
        text = decode_utf8(data, path, findings) if data is not None else None
        if text is None or data is None or self.generator.is_partial(path, text, self.site):
            return None  # a partial is not a page: the pages that include it show it
        digest = ""
        if hashed:
            digest = sha256_hex(data)
            self._hash.add(path, digest)
        return (self.pages.prepare(path, text) if self.pages is not None else text), digest

    def _window(
        self,
        window: list[_Read],
        pool: ChunkPool | None,
        on_file: Callable[[str], None] | None,
        last: bool,
    ) -> Generator[ScannedFile | KnownFile, None, ChunkPool | None]:
        """Chunk one window of pages read and hand its files on; returns the pool for the next."""
        pages, cache = self.pages, self.cache
        # A page of API entries read from source is cut per entry unless it declares otherwise.
        jobs: list[Job] = [(read.text, read.path, self._settings(read.path)) for read in window]
        # A plain page's cached entry holds its chunks with their kinds: a hit is finished as it is.
        stage = KINDS_STAGE if pages is None else ""
        keys = (
            [file_key(path, text, settings, stage) for text, path, settings in jobs]
            if cache is not None
            else [""] * len(jobs)
        )
        same = [self._same(read, key) for read, key in zip(window, keys, strict=True)]
        cached = [
            cache.get(key) if cache is not None and known is None else None
            for key, known in zip(keys, same, strict=True)
        ]
        misses = [
            job for job, hit, known in zip(jobs, cached, same, strict=True) if hit is None and known is None
        ]
        if pool is None and worker_count(self._workers, len(misses)) > 1:
            pool = ChunkPool(worker_count(self._workers, len(misses)))
        if not misses:
            fresh: Iterator[ChunkedFile] = iter(())
        elif pool is not None:
            fresh = pool.chunk(misses, last=last)
        else:
            fresh = (chunk_file(*job) for job in misses)
        for index, hit in enumerate(cached):
            known = same[index]
            if known is not None:
                yield self._known_file(known, on_file, read=True)
                continue
            chunked = hit if hit is not None else next(fresh)
            key = keys[index]
            if hit is None and pages is None:
                chunked = dataclasses.replace(chunked, chunks=with_kinds(chunked.chunks))
            if cache is not None and hit is None:
                cache.put(key, chunked)
            if on_file is not None:
                on_file(chunked.path)
            urls: dict[str, str] = {}
            found: list[Finding] = []
            if pages is not None:
                # The cache holds what chunk_file made of the prepared text; a page is finished after.
                chunked, found = pages.finish(chunked)
                self.findings.extend(found)
                urls = {
                    chunk.id: pages.urls.pop(chunk.id) for chunk in chunked.chunks if chunk.id in pages.urls
                }
                chunked = dataclasses.replace(chunked, chunks=with_kinds(chunked.chunks))
            found.extend(self._gather(chunked))
            read = window[index]
            yield ScannedFile(chunked, key, urls, read.digest, read.status, tuple(found))
        return pool

    def _same(self, read: _Read, key: str) -> KnownFile | None:
        """The page ``read`` as the last build recorded it, when its key is the one recorded."""
        if self._known is None or self.cache is None:
            return None
        same = self._known.by_key(read.path, key)
        if same is None or not self.cache.keep(key, same.entry):
            return None
        return dataclasses.replace(same, digest=read.digest, status=read.status)

    def _settings(self, path: str) -> FileSettings:
        settings = self._resolver.settings(path)
        return self.pages.settings(path, settings) if self.pages is not None else settings

    def _gather(self, chunked: ChunkedFile) -> list[Finding]:
        """Count a chunked page; returns its findings."""
        self.any_chunks = self.any_chunks or bool(chunked.chunks)
        found = [*chunked.findings, *check_declarations(chunked, self.facets)]
        self.findings.extend(found)
        if not chunked.strategy_explicit:
            self.defaulted.append(chunked.path)
        return found

    def _layout(self) -> dict[str, DocsManifest]:
        """The manifests ``sdk_layout`` infers for a folder without any, by folder (empty: no SDK
        folder), from a first read of the pages that keeps only their fence languages."""
        thrown: list[Finding] = []  # the pages are read again and their problems found then
        fences, paths = [], []
        for path in self.paths:
            read = self._read(path, thrown, hashed=False)
            if read is not None:
                fences.append(fences_of(path, read[0]))
                paths.append(path)
        layout = infer_layout(fences)
        inferred: dict[str, DocsManifest] = {}
        for folder, data in layout_manifests(layout, paths).items():
            path = f"{folder}/{MANIFEST_NAME}" if folder else MANIFEST_NAME
            manifest, problems = parse_manifest(json.dumps(data).encode(), path)
            assert not problems, problems  # built from the schema's own shape
            inferred[folder] = manifest
        return inferred


@dataclass(frozen=True)
class _Read:
    """A page read, waiting in a window to be chunked."""

    text: str
    path: str
    digest: str
    status: Status | None


def _template_text(
    source: DocsFiles, path: str, findings: list[Finding], early: dict[str, bytes]
) -> str | None:
    """A template's text (its bytes counted in the content hash), or None after a finding."""
    data = source.read(path, findings, rule="unreadable-file")
    text = decode_utf8(data, path, findings) if data is not None else None
    if text is not None and data is not None:
        early[path] = data
    return text


def _load_manifests(
    files: DocsFiles, paths: list[str], findings: list[Finding], contents: dict[str, bytes]
) -> dict[str, DocsManifest]:
    """Every manifest by its folder ("" for the root); problems go to ``findings``."""
    manifests: dict[str, DocsManifest] = {}
    for path in paths:
        data = files.read(path, findings, rule="invalid-manifest")
        manifest, problems = parse_manifest(data, path)
        manifests[manifest.folder] = manifest
        findings.extend(problems)
        if data is not None:
            contents[path] = data
    return manifests
