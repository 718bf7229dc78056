"""A docs folder read whole: every markdown file chunked under its manifest, plus every finding.

This is the one walk over the docs that ``validate``, ``chunk`` and ``build`` share, so all three see
the same files, the same settings and the same problems.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from docs_mcp.chunk.chunk_pool import ChunkPool, Job
from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.chunks import Chunk
from docs_mcp.chunk.kinds import with_kinds
from docs_mcp.corpus.chunk_cache import ChunkCache, file_key
from docs_mcp.corpus.copy_rules import declared_rules
from docs_mcp.corpus.docs_manifest import MANIFEST_NAME, DocsManifest, TaxonomyEntry, parse_manifest
from docs_mcp.corpus.facets import (
    FacetSpec,
    SettingsResolver,
    check_declarations,
    check_manifest_metadata,
    facets_of,
    merged_taxonomy,
)
from docs_mcp.corpus.files import (
    NOT_REGULAR_RULE,
    FileTooLarge,
    NotRegularFile,
    decode_utf8,
    read_regular_file,
)
from docs_mcp.corpus.findings import HasFindings, SummaryFinding
from docs_mcp.corpus.prompts import read_templates
from docs_mcp.corpus.sdk_layout import fences_of, infer_layout, layout_manifests
from docs_mcp.corpus.site import Site, detect_site
from docs_mcp.corpus.site_pages import SitePages
from docs_mcp.corpus.sites import MDX_GENERATOR
from docs_mcp.corpus.sites.base import generator_of
from docs_mcp.corpus.walk import DocsTree, walk_docs
from docs_mcp.errors import ConfigError, Finding
from docs_mcp.limits import MAX_FILE_BYTES
from docs_mcp.prompt_templates import PromptTemplate

__all__ = ["DEFAULT_STRATEGY_RULE", "EMPTY_CORPUS_RULE", "Corpus", "FacetSpec", "load_corpus"]

DEFAULT_STRATEGY_RULE = "default-strategy"
SUMMARY_EXAMPLES = 3  # paths named in a summary warning's message
# Below this many files helper processes cost more to start (their imports) than they save.
PARALLEL_THRESHOLD = 400


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
    folders are read as they are.

    Raises:
        ConfigError: ``docs_dir`` does not exist or is not a folder.
    """
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
    files = _Files(root, overlay)
    if chunk_cache is not None:  # the pool is sized by what the cache does not hold
        return _load(
            files,
            tree,
            lambda count: ChunkPool(_worker_count(workers, count)),
            on_file,
            chunk_cache,
            site_config,
        )
    # Started now so that the helpers' start-up overlaps with reading the files.
    with ChunkPool(_worker_count(workers, len(tree.markdown) + len(tree.mdx) + len(tree.rst))) as pool:
        return _load(files, tree, lambda _count: pool, on_file, None, site_config)


def _worker_count(workers: int | None, files: int) -> int:
    if workers is not None:
        return max(1, workers)
    return min(os.cpu_count() or 1, 4) if files >= PARALLEL_THRESHOLD else 1


@dataclass(frozen=True)
class _Files:
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


def _load(
    source: _Files,
    tree: DocsTree,
    make_pool: Callable[[int], ChunkPool],
    on_file: Callable[[str], None] | None,
    cache: ChunkCache | None,
    site_config: Path | None = None,
) -> Corpus:
    findings: list[Finding] = [
        Finding(p, 0, "warning", "symbolic link points outside the docs root; not indexed", "outside-root")
        for p in tree.outside
    ]
    findings.extend(
        Finding(p, 0, "warning", f"{kind}, not a regular file; not indexed", NOT_REGULAR_RULE)
        for p, kind in tree.special
    )
    contents: dict[str, bytes] = {}  # what the content hash covers
    root = source.root
    manifests = _load_manifests(source, tree.manifests, findings, contents)
    root_manifest = manifests.get("")
    site = detect_site(root, site_config, root_manifest.site if root_manifest is not None else None)
    findings.extend(site.findings)
    if not site.recognised and tree.mdx:
        site = replace(site, generator=MDX_GENERATOR)  # MDX pages are read as MDX wherever they are
    generator = generator_of(site)
    pages = SitePages(site, root) if site.recognised or site.url_template else None
    by_suffix = {".md": tree.markdown, ".mdx": tree.mdx, ".rst": tree.rst}
    paths = sorted(path for suffix in generator.extensions for path in by_suffix.get(suffix, []))
    if tree.mdx and ".mdx" not in generator.extensions:
        findings.append(_mdx_unread(tree.mdx, site))
    texts: list[tuple[str, str]] = []
    for path in paths:
        data = source.read(path, findings, rule="unreadable-file")
        text = decode_utf8(data, path, findings) if data is not None else None
        if text is None or data is None or generator.is_partial(path, text, site):
            continue  # a partial is not a page: the pages that include it show it
        contents[path] = data
        if pages is not None:
            text = pages.prepare(path, text)
        texts.append((text, path))
    # A folder without any manifest gets the facets its layout says (what ``fix`` would propose).
    layout = _layout_manifests(texts) if not manifests else {}
    governing = {**layout, **manifests}
    facets = facets_of(governing.values())
    resolver = SettingsResolver(governing)
    # A page of API entries read from source is cut per entry unless it declares otherwise.
    jobs: list[Job] = [
        (
            text,
            path,
            pages.settings(path, resolver.settings(path)) if pages is not None else resolver.settings(path),
        )
        for text, path in texts
    ]
    keys = [file_key(path, text, settings) for text, path, settings in jobs] if cache is not None else []
    cached = [cache.get(key) for key in keys] if cache is not None else [None] * len(jobs)
    files: list[ChunkedFile] = []
    # The cache holds what chunk_file made of the prepared text; a site's pages are finished after it.
    with make_pool(cached.count(None)) as pool:
        fresh = pool.chunk([job for job, hit in zip(jobs, cached, strict=True) if hit is None])
        for index, hit in enumerate(cached):
            chunked = hit if hit is not None else next(fresh)
            if cache is not None and hit is None:
                cache.put(keys[index], chunked)
            if on_file is not None:
                on_file(chunked.path)
            if pages is not None:
                chunked, site_findings = pages.finish(chunked)
                findings.extend(site_findings)
            files.append(dataclasses.replace(chunked, chunks=with_kinds(chunked.chunks)))
    if not any(chunked.chunks for chunked in files):
        findings.append(_empty(root, site, generator.extensions, len(paths)))
    for chunked in files:
        findings.extend(chunked.findings)
        findings.extend(check_declarations(chunked, facets))
    defaulted = [file.path for file in files if not file.strategy_explicit]
    if defaulted:
        findings.append(default_strategy_summary(defaulted, root))
    for manifest in manifests.values():
        findings.extend(check_manifest_metadata(manifest, facets))
    rules = declared_rules(manifests, [file.path for file in files])
    findings.extend(rules.findings)
    prompts, prompt_findings = read_templates(
        tree.templates, lambda path, found: _template_text(source, path, found, contents)
    )
    findings.extend(prompt_findings)
    return Corpus(
        root=root,
        files=files,
        findings=sorted(set(findings), key=lambda f: (f.path, f.line, f.rule, f.message)),
        facets=facets,
        instructions=root_manifest.instructions if root_manifest is not None else None,
        content_hash=_content_hash(contents),
        taxonomy=merged_taxonomy(governing.values()),
        embedding=root_manifest.embedding if root_manifest is not None else None,
        library_version=root_manifest.library_version if root_manifest is not None else None,
        manifests=manifests,
        site=site,
        urls=pages.urls if pages is not None else {},
        stub_chunks=pages.stub_chunks if pages is not None else 0,
        file_keys={job[1]: key for job, key in zip(jobs, keys, strict=True)} if cache is not None else {},
        prompts=prompts,
        layout_facets=sorted(folder for folder in layout if folder),
        declared_copies=rules.copies,
    )


def _template_text(
    source: _Files, path: str, findings: list[Finding], contents: dict[str, bytes]
) -> str | None:
    """A template's text (its bytes counted in the content hash), or None after a finding."""
    data = source.read(path, findings, rule="unreadable-file")
    text = decode_utf8(data, path, findings) if data is not None else None
    if text is not None and data is not None:
        contents[path] = data
    return text


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


def _load_manifests(
    files: _Files, paths: list[str], findings: list[Finding], contents: dict[str, bytes]
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


def _layout_manifests(texts: list[tuple[str, str]]) -> dict[str, DocsManifest]:
    """The manifests ``sdk_layout`` infers for a folder without any, by folder (empty: no SDK folder)."""
    layout = infer_layout(fences_of(path, text) for text, path in texts)
    inferred: dict[str, DocsManifest] = {}
    for folder, data in layout_manifests(layout, [path for _, path in texts]).items():
        path = f"{folder}/{MANIFEST_NAME}" if folder else MANIFEST_NAME
        manifest, problems = parse_manifest(json.dumps(data).encode(), path)
        assert not problems, problems  # built from the schema's own shape
        inferred[folder] = manifest
    return inferred


def _content_hash(contents: Mapping[str, bytes]) -> str:
    digest = hashlib.sha256()
    for path in sorted(contents):
        # Length-prefixed so that no (path, bytes) sequence can collide with another.
        encoded = path.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
        digest.update(len(contents[path]).to_bytes(8, "big") + contents[path])
    return digest.hexdigest()
