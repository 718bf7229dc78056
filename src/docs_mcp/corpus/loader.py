"""A docs folder read whole: every markdown file chunked under its manifest, plus every finding.

This is the one walk over the docs that ``validate``, ``chunk`` and ``build`` share, so all three see
the same files, the same settings and the same problems.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.chunk_cache import ChunkCache
from docs_mcp.corpus.docs_manifest import DocsManifest, TaxonomyEntry
from docs_mcp.corpus.facets import FacetSpec, SettingsResolver, check_manifest_metadata, merged_taxonomy
from docs_mcp.corpus.findings import HasFindings, SummaryFinding
from docs_mcp.corpus.scan import PARALLEL_THRESHOLD, CorpusScan, DocsFiles, ScannedFile
from docs_mcp.corpus.site import Site
from docs_mcp.corpus.walk import walk_docs
from docs_mcp.errors import ConfigError, Finding
from docs_mcp.prompt_templates import PromptTemplate

__all__ = [
    "DEFAULT_STRATEGY_RULE",
    "EMPTY_CORPUS_RULE",
    "PARALLEL_THRESHOLD",
    "Corpus",
    "FacetSpec",
    "load_corpus",
    "scan_corpus",
    "scanned_corpus",
]

DEFAULT_STRATEGY_RULE = "default-strategy"
SUMMARY_EXAMPLES = 3  # paths named in a summary warning's message


@dataclass
class Corpus(HasFindings):
    """Every indexed file of a docs folder, chunked, with every finding about it."""

    root: Path
    files: list[ChunkedFile]  # sorted by path
    findings: list[Finding]  # manifests, read errors, chunker, taxonomy; sorted
    facets: dict[str, FacetSpec]  # union over all manifests of metadata and taxonomy keys
    instructions: str | None  # the root manifest's mcpServerInstructions
    content_hash: str  # sha256 over sorted (relative path, bytes) of indexed files and manifests
    # Every manifest's taxonomy merged: values, mcp_resource values and aliases unioned,
    # vector_collapse OR-ed.
    taxonomy: dict[str, TaxonomyEntry] = field(default_factory=dict)
    # The root manifest's `embedding` settings (provider, model, ...): build's defaults.
    embedding: Mapping[str, object] | None = None
    library_version: str | None = None  # the root manifest's libraryVersion (build --version wins)
    manifests: dict[str, DocsManifest] = field(default_factory=dict)  # by folder ("" for the root)
    site: Site = field(default_factory=Site)  # the site generator the docs are written for
    urls: dict[str, str] = field(default_factory=dict)  # chunk id -> page URL (a site with a base URL)
    stub_chunks: int = 0  # sections of a site's pages with nothing but headings: not indexed
    # Each file's chunk cache key (``chunk_cache.file_key``) when loaded with a cache, by path.
    file_keys: dict[str, str] = field(default_factory=dict)
    prompts: list[PromptTemplate] = field(default_factory=list)  # the valid ``*.template.md``, by path
    # The SDK folders whose facets came from the layout (a folder without manifests: see sdk_layout.py).
    layout_facets: list[str] = field(default_factory=list)
    # (copy, original) file paths the manifests declare (overrides' ``copy_of``: copy_rules.py).
    declared_copies: tuple[tuple[str, str], ...] = ()

    def governing(self, path: str) -> DocsManifest | None:
        """The manifest that governs the file at ``path`` (the nearest one above it), if any."""
        return SettingsResolver(self.manifests).governing(path.rpartition("/")[0])

    @property
    def chunks(self) -> list[Chunk]:
        return [chunk for file in self.files for chunk in file.chunks]


def load_corpus(
    docs_dir: Path,
    on_file: Callable[[str], None] | None = None,
    *,
    workers: int | None = None,
    overlay: Mapping[str, bytes] | None = None,
    site_config: Path | None = None,
    chunk_cache: ChunkCache | None = None,
) -> Corpus:
    """Read, resolve and chunk every ``*.md`` under ``docs_dir`` (``on_file`` is told each path, in path
    order, as its chunks are ready). ``overlay`` maps posix paths under ``docs_dir`` to contents that
    replace (or add) files, so that proposed changes are checked without writing them (``fix``).

    Problems in the docs never raise: they become findings (see ``Corpus.errors``). ``workers``
    is the number of chunking processes, this one included; None picks one per CPU (at most 4) for
    folders of ``PARALLEL_THRESHOLD`` files or more, else chunks in this process. The result is the
    same whatever the number (see ``chunk_pool.py``). With ``chunk_cache``, files it holds are not
    chunked again and the files chunked are put in it (the caller saves it); the result is the same.

    The site generator the docs are the source of (``site_config``, else the root manifest's
    ``site`` key, else a config beside the folder: see ``site.py``) decides whether ``*.mdx`` pages
    are read and how pages are made plain before chunking (``site_pages.py``); plain markdown
    folders are read as they are. ``scan_corpus`` is the same walk file by file.

    Raises:
        ConfigError: ``docs_dir`` does not exist or is not a folder.
    """
    scan = scan_corpus(
        docs_dir, workers=workers, overlay=overlay, site_config=site_config, chunk_cache=chunk_cache
    )
    files: list[ChunkedFile] = []
    urls: dict[str, str] = {}
    keys: dict[str, str] = {}
    for scanned in scan.files(on_file):
        assert isinstance(scanned, ScannedFile)  # pages are known only to a build's record
        files.append(scanned.file)
        urls.update(scanned.urls)
        if chunk_cache is not None:
            keys[scanned.file.path] = scanned.key
    return scanned_corpus(scan, files, urls, keys)


def scan_corpus(
    docs_dir: Path,
    *,
    workers: int | None = None,
    overlay: Mapping[str, bytes] | None = None,
    site_config: Path | None = None,
    chunk_cache: ChunkCache | None = None,
) -> CorpusScan:
    """The walk of ``load_corpus`` (same arguments), file by file: iterate its ``files``, then
    ``scanned_corpus`` gives the corpus without its files. Raises ``ConfigError`` as ``load_corpus``."""
    root = Path(docs_dir)
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "does not exist"
        raise ConfigError(
            f"docs directory {str(root)!r} {what}; pass --docs-dir pointing at your markdown folder"
        )
    tree = walk_docs(root)
    overlay = dict(overlay or {})
    for path in overlay:
        tree.add(path)
    return CorpusScan(DocsFiles(root, overlay), tree, workers, chunk_cache, site_config)


def scanned_corpus(
    scan: CorpusScan,
    files: list[ChunkedFile],
    urls: dict[str, str] | None = None,
    file_keys: dict[str, str] | None = None,
) -> Corpus:
    """The corpus ``scan`` walked (once its ``files`` are exhausted), holding ``files`` (those kept of
    them: none for a build, which streams them) and every finding about the whole folder."""
    findings = list(scan.findings)
    if scan.mdx_unread:
        findings.append(_mdx_unread(scan.mdx_unread, scan.site))
    if not scan.any_chunks:
        findings.append(_empty(scan.root, scan.site, scan.generator.extensions, len(scan.paths)))
    if scan.defaulted:
        findings.append(default_strategy_summary(scan.defaulted, scan.root))
    for manifest in scan.manifests.values():
        findings.extend(check_manifest_metadata(manifest, scan.facets))
    root_manifest = scan.manifests.get("")
    pages = scan.pages
    return Corpus(
        root=scan.root,
        files=files,
        findings=sorted(set(findings), key=lambda f: (f.path, f.line, f.rule, f.message)),
        facets=scan.facets,
        instructions=root_manifest.instructions if root_manifest is not None else None,
        content_hash=scan.content_hash,
        taxonomy=merged_taxonomy(scan.governing.values()),
        embedding=root_manifest.embedding if root_manifest is not None else None,
        library_version=root_manifest.library_version if root_manifest is not None else None,
        manifests=scan.manifests,
        site=scan.site,
        urls=urls or {},
        stub_chunks=pages.stub_chunks if pages is not None else 0,
        file_keys=file_keys or {},
        prompts=scan.prompts,
        layout_facets=sorted(folder for folder in scan.layout if folder),
        declared_copies=scan.rules.copies,
    )


EMPTY_CORPUS_RULE = "empty-corpus"


def _empty(root: Path, site: Site, extensions: tuple[str, ...], files: int) -> Finding:
    """The error of a docs folder that gives no chunk: nothing would be indexed (an index of 0
    chunks answers nothing, so validate and build fail rather than publish it)."""
    looked = " or ".join(f"*{suffix}" for suffix in extensions)
    what = f"the {site.generator} site's pages ({looked})" if site.recognised else f"{looked} files"
    found = f"{files} file(s) found, none with text" if files else "none found"
    message = (
        f"no pages to index in {root}: looked for {what} under it, hidden folders and partials aside; "
        f"{found}. Pass --docs-dir pointing at the folder that holds the pages"
    )
    return Finding("", 0, "error", message, EMPTY_CORPUS_RULE)


def _mdx_unread(paths: list[str], site: Site) -> SummaryFinding:
    count = len(paths)
    examples = ", ".join(paths[:SUMMARY_EXAMPLES]) + (
        f" and {count - SUMMARY_EXAMPLES} more" if count > SUMMARY_EXAMPLES else ""
    )
    message = (
        f"{count} .mdx pages are not indexed ({examples}): {site.generator} does not read them; pass "
        "--site-config with the site's config, or set site.generator in the root .docs-mcp.json"
    )
    return SummaryFinding("", 0, "warning", message, "mdx-not-read", tuple(paths))


def default_strategy_summary(paths: list[str], root: Path) -> SummaryFinding:
    """The one warning about every file that declares no strategy (spec: non-fatal, so that SDK
    syncs do not break the CI gate), naming the first few and what to run."""
    count = len(paths)
    files = f"{count} files declare" if count != 1 else "1 file declares"
    examples = ", ".join(paths[:SUMMARY_EXAMPLES])
    more = f" and {count - SUMMARY_EXAMPLES} more" if count > SUMMARY_EXAMPLES else ""
    message = (
        f"{files} no chunking strategy and use the catch-all **/*.md -> h2 ({examples}{more}); "
        f"run `docs-mcp fix --docs-dir {root}` to propose manifests"
    )
    return SummaryFinding("", 0, "warning", message, DEFAULT_STRATEGY_RULE, tuple(paths))
