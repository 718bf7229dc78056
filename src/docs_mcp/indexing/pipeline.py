"""``build``: validate and chunk a docs folder, embed it, and write the index atomically.

The index is written into a private staging folder beside ``OUT`` and swapped in at the end
(an atomic exchange on Linux, see ``docs_mcp.store.swap``), so an interrupted or failed build leaves
the previous index untouched and usable, and a validation error writes nothing at all. A rebuild
into the index the last build wrote rewrites only the changed files' rows (``indexing.incremental``).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from docs_mcp import __version__
from docs_mcp.corpus.chunk_cache import ChunkCache
from docs_mcp.corpus.copies import CopyFinder
from docs_mcp.corpus.copy_map import MainCopies
from docs_mcp.corpus.docs_manifest import MANIFEST_NAME, TaxonomyEntry, load_manifest
from docs_mcp.corpus.known_pages import KnownFile
from docs_mcp.corpus.loader import Corpus, scan_corpus, scanned_corpus
from docs_mcp.corpus.scan import ScannedFile
from docs_mcp.embedding.embedding_cache import CachingProvider
from docs_mcp.embedding.provider import EmbeddingSettings
from docs_mcp.errors import ConfigError, Finding, NoSpace, ValidationFailed
from docs_mcp.indexing import first_pass, in_place, incremental
from docs_mcp.indexing.build_cache import LEGACY_CACHE_DIR_NAME, build_cache_dir
from docs_mcp.indexing.embed import EmbeddingPlan, VectorStream, make_provider, resolve_settings
from docs_mcp.indexing.ledger import FileLedger, copy_digests
from docs_mcp.indexing.row_cache import BATCH_ROWS, RowCache
from docs_mcp.indexing.rows import copy_batches, vector_batches
from docs_mcp.indexing.spill import FileSpill
from docs_mcp.indexing.tally import CorpusTally
from docs_mcp.indexing.writer import write_batches
from docs_mcp.libc import release_free_memory
from docs_mcp.store.index_manifest import (
    FORMAT_VERSION,
    MANIFEST_FILE,
    EmbeddingInfo,
    FacetTaxonomy,
    IndexManifest,
    write_manifest,
)
from docs_mcp.store.swap import new_staging_dir, swap_in

__all__ = ["BuildOptions", "BuildProgress", "BuildResult", "build"]

log = logging.getLogger(__name__)

Stage = Literal["files", "chunks", "estimate", "embedding", "writing", "done"]


@dataclass(frozen=True)
class BuildProgress:
    """One progress report: ``done`` of ``total`` (None when unknown) in ``stage``. For
    ``embedding``, ``total`` counts the chunks to embed (those not in the cache); its first report
    (``done`` 0) says how many are cached in ``detail``."""

    stage: Stage
    done: int
    total: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class BuildOptions:
    docs_dir: Path
    out: Path
    description: str | None = None
    version: str | None = None  # the documented library's version, recorded for `serve` (issue 22)
    embedding_provider: str | None = None  # None: the root manifest's `embedding`, else "none"
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)  # over the manifest's
    cache_dir: Path | None = None  # the rebuild cache; default: build_cache.build_cache_dir
    site_config: Path | None = None  # the site generator's config; None: found beside the docs
    progress: Callable[[BuildProgress], None] | None = None
    # Rows written (and chunks embedded) at once: what sets the build's memory. None: BATCH_ROWS.
    batch_rows: int | None = None
    full: bool = False  # write the whole index even where an update in place would do (incremental.py)


@dataclass(frozen=True)
class BuildResult:
    out: Path
    manifest: IndexManifest
    file_count: int
    chunk_count: int
    seconds: float
    warnings: list[Finding] = field(default_factory=list)
    embedded: int = 0
    cache_hits: int | None = None  # None: no embedding cache in use
    cache_misses: int | None = None
    files_rechunked: int = 0  # files not in the chunk cache of the last build (all of them the first time)
    cache_dir: Path | None = None  # the rebuild cache this build read and wrote
    cache_damaged: int = 0  # cached entries that failed their checks and were made again
    incremental: bool = False  # only the changed files' rows were rewritten (indexing/incremental.py)

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (``docs-mcp build --json``)."""
        embedding = self.manifest.embedding
        return {
            "out": str(self.out),
            "files": self.file_count,
            "chunks": self.chunk_count,
            "embedding": (
                {"provider": embedding.provider, "model": embedding.model, "dimensions": embedding.dimensions}
                if embedding
                else None
            ),
            "embedded": self.embedded,
            "cache_hits": self.cache_hits,
            "cache_misses": self.cache_misses,
            "files_rechunked": self.files_rechunked,
            "cache_dir": str(self.cache_dir) if self.cache_dir else None,
            "cache_damaged": self.cache_damaged,
            "incremental": self.incremental,
            "seconds": round(self.seconds, 3),
            "warnings": [finding.to_dict() for finding in self.warnings],
        }


def _disk_full(error: BaseException) -> bool:
    return getattr(error, "errno", None) == errno.ENOSPC or "(os error 28)" in str(error)


def build(options: BuildOptions) -> BuildResult:
    """Build the index of ``options.docs_dir`` into ``options.out``, replacing any previous index.

    Two passes, so that memory is set by a batch, not by the corpus (issue 34): the docs are walked,
    chunked and validated file by file, each file set aside in a spill file in the staging folder and
    counted (``tally``); then the files are read back in order into rows, embedded and written to
    LanceDB batch by batch, and the copy groups are found among the sections the tally set aside.

    Raises:
        ValidationFailed: the docs have errors (nothing is written).
        ConfigError: a bad option, or ``out`` exists and is not a docs-mcp index.
        EmbeddingError: the embedding provider failed (the previous index stays in place).
    """
    started = time.monotonic()
    report = options.progress or (lambda _: None)
    out = Path(os.path.abspath(options.out))  # absolute and without `..`: the path people read
    _check_out(out)
    # The provider first: a missing extra or API key fails before the corpus is chunked.
    name, settings = resolve_settings(
        options.embedding_provider, options.embedding, _configured_embedding(Path(options.docs_dir))
    )
    cache_dir = build_cache_dir(Path(options.docs_dir), options.site_config, out, options.cache_dir)
    provider = make_provider(name, settings, cache_dir)
    # What the last build into this cache chunked and which rows it made: a rebuild redoes only the
    # files that changed, with the same result as a full build (chunk_cache.py, row_cache.py).
    chunk_cache, row_cache = ChunkCache(cache_dir), RowCache(cache_dir)
    staging = new_staging_dir(out)
    spill: FileSpill | None = None
    copies: CopyFinder | None = None
    pages: first_pass.RecordWriter | None = None
    try:
        spill = FileSpill(staging / _SPILL_NAME)
        copies = CopyFinder(staging, lambda number: spill.get(number).file.chunks)
        ledger = FileLedger()
        tally = CorpusTally(copies, _plan(provider))
        corpus, pages = _scan(options, chunk_cache, spill, tally, ledger, report)
        # Each copy's group is written with its row (store.columns.COPY_COLUMN); the manifest counts them.
        # From the last build's groups when the cache holds them: regrouped where the edits reach.
        copy_state = incremental.copy_groups(
            cache_dir, ledger, tally.copies, corpus.declared_copies, options.full
        )
        main_copies = copy_state.grouping.main_copies()
        release_free_memory()  # the first pass's windows and clusters: the rows' writer would add to them
        manifest = replace(_manifest(options, corpus, tally, provider), copy_groups=main_copies.groups)
        report(BuildProgress("chunks", tally.chunks, tally.chunks, f"from {tally.files} files"))
        if provider is None:
            report(BuildProgress("writing", 0, None, str(out)))
        # An edit rewrites only the rows it changes when the index at OUT is the one the last build wrote.
        file_copies = copy_digests(copy_state, ledger)
        update = (
            None
            if options.full or file_copies is None
            else incremental.plan(out, cache_dir, ledger, file_copies, manifest, tally.urls)
        )
        if update is None:
            batch_rows = options.batch_rows or BATCH_ROWS
            _write_rows(staging, spill, tally, row_cache, provider, report, batch_rows, main_copies)
            write_manifest(staging, manifest)
        else:
            _update(update, out, staging, spill, tally, provider, report, main_copies, manifest)
        if provider is not None:  # the rows were written as their vectors came: the embedding stage
            report(BuildProgress("writing", 0, None, str(out)))
        spill.close()
        copies.close()
        swap_in(staging, out)
        _save_caches(chunk_cache, row_cache, compact=update is None)
        pages.save(cache_dir)
        kept = incremental.keep_copy_state(cache_dir, copy_state)
        incremental.record(cache_dir, out, ledger, file_copies, manifest, tally.urls, update, kept)
    except (OSError, RuntimeError) as error:  # LanceDB reports a full disk as a RuntimeError
        if not _disk_full(error):
            raise
        raise NoSpace(
            f"{out.parent}: the disk filled up while writing the new index; the previous index at {out} "
            "is unchanged. Free some space (or choose another --out) and build again"
        ) from None
    finally:
        if pages is not None:
            pages.discard()
        if spill is not None:
            spill.close()
        if copies is not None:
            copies.close()
        chunk_cache.discard()  # what a failed build wrote of the caches (after save: nothing)
        row_cache.discard()
        shutil.rmtree(staging, ignore_errors=True)
    seconds = time.monotonic() - started
    report(BuildProgress("done", tally.chunks, tally.chunks, f"chunks in {seconds:.1f}s"))
    return BuildResult(
        out=out,
        manifest=manifest,
        file_count=tally.files,
        chunk_count=tally.chunks,
        seconds=seconds,
        warnings=corpus.warnings,
        embedded=tally.chunks if provider else 0,
        cache_hits=provider.hits if provider else None,
        cache_misses=provider.misses if provider else None,
        files_rechunked=chunk_cache.misses,
        cache_dir=cache_dir,
        cache_damaged=chunk_cache.damaged + row_cache.damaged,
        incremental=update is not None,
    )


# The chunked files between the two passes, in the staging folder: removed before the swap.
_SPILL_NAME = "chunked-files.spill"


def _scan(
    options: BuildOptions,
    chunk_cache: ChunkCache,
    spill: FileSpill,
    tally: CorpusTally,
    ledger: FileLedger,
    report: Callable[[BuildProgress], None],
) -> tuple[Corpus, first_pass.RecordWriter]:
    """The first pass: walk and chunk the docs into ``spill``, counting what the manifest needs
    (``tally``) and what an update needs (``ledger``); a page the last build recorded as it is now is
    counted by its summary, not read (``first_pass``). With the record of the pages to keep.

    Raises ``ValidationFailed`` when the docs have errors."""
    files_seen = 0

    def on_file(_path: str) -> None:
        nonlocal files_seen
        files_seen += 1
        report(BuildProgress("files", files_seen))

    scan = scan_corpus(Path(options.docs_dir), site_config=options.site_config, chunk_cache=chunk_cache)
    spill.loader = lambda path, key: ScannedFile(scan.chunked(path, key), key)

    def count(page: ScannedFile | KnownFile, summary: first_pass.FileSummary, chunks: object) -> None:
        if isinstance(page, KnownFile):
            path, number = page.path, spill.add_known(page.path, page.key)
            tally.add(path, summary, number)
        else:
            path, number = page.file.path, spill.add(page)
            tally.add(path, summary, number, page.file.chunks)
        ledger.add(path, summary.row_key, summary.rows, number)

    previous = first_pass.PassRecord.load(chunk_cache.path.parent, scan.context)
    pages = first_pass.walk(scan, chunk_cache, previous, count, on_file)
    corpus = scanned_corpus(scan, [])
    if corpus.errors:
        pages.discard()
        raise ValidationFailed(
            f"{len(corpus.errors)} validation error(s) in {options.docs_dir}; nothing was built. "
            "Fix them (docs-mcp validate shows them all) and build again",
            corpus.findings,
        )
    return corpus, pages


def _manifest(
    options: BuildOptions, corpus: Corpus, tally: CorpusTally, provider: CachingProvider | None
) -> IndexManifest:
    """The index manifest of the scanned corpus, its copies still to find (``_copies``)."""
    facets = tally.facets()
    embedding = EmbeddingInfo(provider.name, provider.model, provider.dimensions) if provider else None
    return IndexManifest(
        format_version=FORMAT_VERSION,
        docs_mcp_version=__version__,
        description=options.description or corpus.site.name,
        instructions=corpus.instructions,
        facets=facets,
        embedding=embedding,
        chunk_count=tally.chunks,
        file_count=tally.files,
        content_hash=corpus.content_hash,
        source_commit=_source_commit(Path(options.docs_dir)),
        version=options.version or corpus.library_version,
        taxonomy=_taxonomy(corpus.taxonomy, facets),
        site=corpus.site.to_dict(Path(options.docs_dir)) if corpus.site.recognised else None,
        prompts=tuple(corpus.prompts),
        examples=tally.example(),
    )


def _write_rows(
    staging: Path,
    spill: FileSpill,
    tally: CorpusTally,
    row_cache: RowCache,
    provider: CachingProvider | None,
    report: Callable[[BuildProgress], None],
    batch_rows: int,
    main_copies: MainCopies,
) -> None:
    """The second pass: the spilled files' rows (from the row cache, or made), each copy's main copy
    and whether it leads its copies (``main_copies``), and their vectors, into LanceDB batch by
    batch, every index built once they are all in."""
    names = sorted(tally.facets())
    files: Iterable[ScannedFile] = spill
    vectors: VectorStream | None = None
    tally.replan(provider, (scanned.file.chunks for scanned in spill))  # pages counted by their summaries
    if provider is not None and tally.plan is not None:
        plan = tally.plan
        cost = plan.cost_line()
        if cost is not None:
            report(BuildProgress("estimate", tally.chunks, tally.chunks, cost))
        # Counted over the inputs to embed: cached ones cost nothing and would make the rate a lie.
        report(BuildProgress("embedding", 0, plan.to_embed, f"{plan.line()} ({provider.model})"))
        embedded_before = provider.embedded
        vectors = VectorStream(
            provider,
            lambda _done, _total: report(
                BuildProgress("embedding", provider.embedded - embedded_before, plan.to_embed, provider.model)
            ),
        )
        files = vectors.files(files, batch_rows)
    schema = RowCache.schema(names, tally.urls)
    batches = row_cache.batches(files, names, tally.urls, batch_rows)
    schema, batches = copy_batches(schema, batches, main_copies)
    if vectors is not None and tally.chunks and provider is not None:
        schema, batches = vector_batches(schema, batches, vectors.take, provider.dimensions)
    write_batches(staging, schema, batches, names)


def _update(
    update: incremental.Update,
    out: Path,
    staging: Path,
    spill: FileSpill,
    tally: CorpusTally,
    provider: CachingProvider | None,
    report: Callable[[BuildProgress], None],
    main_copies: MainCopies,
    manifest: IndexManifest,
) -> None:
    """The index at ``out`` with ``update``'s files' rows rewritten, into ``staging`` (``in_place``)."""
    embedded_before = provider.embedded if provider is not None else 0
    plan = EmbeddingPlan(provider) if provider is not None else None
    if provider is not None and plan is not None:
        # Counted over the rows the update adds: the index keeps the others with their vectors.
        for number in update.added:
            plan.add(spill.get(number).file.chunks)
        cost = plan.cost_line()
        if cost is not None:
            report(BuildProgress("estimate", update.added_rows, update.added_rows, cost))
        kept = f"{plan.line()}, {tally.chunks - update.added_rows} kept in the index"
        report(BuildProgress("embedding", 0, plan.to_embed, f"{kept} ({provider.model})"))

    def embedded(_done: int, _total: int) -> None:
        if provider is not None and plan is not None:
            report(
                BuildProgress("embedding", provider.embedded - embedded_before, plan.to_embed, provider.model)
            )

    names = sorted(tally.facets())
    in_place.apply(update, out, staging, spill, names, tally.urls, main_copies, provider, embedded, manifest)


def _plan(provider: CachingProvider | None) -> EmbeddingPlan | None:
    return EmbeddingPlan(provider) if provider is not None else None


def _save_caches(chunk_cache: ChunkCache, row_cache: RowCache, compact: bool) -> None:
    """Keep what this build made for the next one (``compact``: a full build, which compacts the chunk
    cache); the index is already in place, so a cache that cannot be written (a full disk) costs the
    next build time, never this one its result."""
    saves: list[tuple[ChunkCache | RowCache, Callable[[], None]]] = [
        (chunk_cache, lambda: chunk_cache.save(compact)),
        (row_cache, row_cache.save),
    ]
    for cache, save in saves:
        try:
            save()
        except OSError as error:
            log.warning(
                "could not write the build cache %s (%s); the next build makes it again", cache.path, error
            )


def _configured_embedding(docs_dir: Path) -> Mapping[str, object] | None:
    """The root manifest's ``embedding`` settings; None without one, or when it is invalid (the
    corpus's validation then refuses the build, naming the problem)."""
    path = docs_dir / MANIFEST_NAME
    if not path.is_file():
        return None
    manifest, findings = load_manifest(path, MANIFEST_NAME)
    if any(finding.severity == "error" for finding in findings):
        return None
    return manifest.embedding


def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST_FILE).exists())):
        entries = {p.name for p in out.iterdir()} if out.is_dir() else set()
        if entries != {LEGACY_CACHE_DIR_NAME}:  # a cache left by a failed first build is fine
            raise ConfigError(
                f"{out} exists and is not a docs-mcp index; refusing to replace it. "
                "Choose an empty or new --out"
            )


def _taxonomy(
    declared: Mapping[str, TaxonomyEntry], facets: Mapping[str, list[str]]
) -> dict[str, FacetTaxonomy]:
    """What the index manifest records of the taxonomy: folding, aliases and resources of the facets
    and values the index holds (only facets that declare any of them)."""
    recorded: dict[str, FacetTaxonomy] = {}
    for name, entry in declared.items():
        present = set(facets.get(name, ()))
        taxonomy = FacetTaxonomy(
            vector_collapse=entry.vector_collapse and bool(present),
            aliases={value: list(words) for value, words in entry.aliases.items() if value in present},
            resources=[value for value in entry.resources if value in present],
        )
        if taxonomy != FacetTaxonomy():
            recorded[name] = taxonomy
    return recorded


def _source_commit(docs_dir: Path) -> str | None:
    """The git commit checked out in ``docs_dir``, or None when it is not in a git work tree."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(
            ["git", "-C", str(docs_dir), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        commit = done.stdout.strip()
        if done.returncode == 0 and len(commit) in (40, 64):
            return commit
    return None
