"""A docs folder read whole: every markdown file chunked under its manifest, plus every finding.

This is the one walk over the docs that ``validate``, ``chunk`` and ``build`` share, so all three see
the same files, the same settings and the same problems.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.chunk.chunk_pool import ChunkPool, Job
from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.chunks import Chunk, FileSettings
from docs_mcp.corpus.chunk_cache import ChunkCache, file_key
from docs_mcp.corpus.docs_manifest import MANIFEST_NAME, DocsManifest, TaxonomyEntry, parse_manifest
from docs_mcp.corpus.files import (
    NOT_REGULAR_RULE,
    FileTooLarge,
    NotRegularFile,
    read_regular_file,
    special_file_kind,
)
from docs_mcp.corpus.findings import HasFindings, SummaryFinding
from docs_mcp.corpus.prompts import is_template, read_templates
from docs_mcp.corpus.site import Site, detect_site
from docs_mcp.corpus.site_pages import SitePages
from docs_mcp.errors import ConfigError, Finding
from docs_mcp.limits import MAX_FILE_BYTES
from docs_mcp.prompt_templates import PromptTemplate

__all__ = ["DEFAULT_STRATEGY_RULE", "Corpus", "FacetSpec", "load_corpus"]

DEFAULT_STRATEGY_RULE = "default-strategy"
SUMMARY_EXAMPLES = 3  # paths named in a summary warning's message
# Below this many files helper processes cost more to start (their imports) than they save.
PARALLEL_THRESHOLD = 400


@dataclass(frozen=True)
class FacetSpec:
    """A filterable metadata key. ``allowed`` lists the taxonomy's values; None: any string value."""

    name: str
    allowed: tuple[str, ...] | None


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

    def governing(self, path: str) -> DocsManifest | None:
        """The manifest that governs the file at ``path`` (the nearest one above it), if any."""
        return _SettingsResolver(self.manifests).governing(path.rpartition("/")[0])

    @property
    def chunks(self) -> list[Chunk]:
        return [chunk for file in self.files for chunk in file.chunks]


@dataclass
class _Tree:
    markdown: list[str]  # posix paths relative to the root, sorted
    manifests: list[str]
    outside: list[str]  # symlinks leading out of the root: reported, never read
    special: list[tuple[str, str]]  # (path, kind) of FIFOs, devices, sockets: reported, never opened
    mdx: list[str] = field(default_factory=list)  # ``*.mdx`` pages: read when the site generator uses them
    templates: list[str] = field(default_factory=list)  # ``*.template.md`` prompt templates (prompts.py)


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
    tree = _walk(root)
    overlay = dict(overlay or {})
    for path in overlay:
        name = path.rpartition("/")[2]
        if name == MANIFEST_NAME and path not in tree.manifests:
            tree.manifests.append(path)
        elif _is_markdown(name) and path not in tree.markdown:
            tree.markdown.append(path)
        elif _is_mdx(name) and path not in tree.mdx:
            tree.mdx.append(path)
        elif is_template(name) and path not in tree.templates:
            tree.templates.append(path)
    tree.markdown.sort()
    tree.manifests.sort()
    files = _Files(root, overlay)
    if chunk_cache is not None:  # the pool is sized by what the cache does not hold
        return _load(
            files, tree, lambda count: ChunkPool(_worker_count(workers, count)), on_file, chunk_cache
        )
    # Started now so that the helpers' start-up overlaps with reading the files.
    with ChunkPool(_worker_count(workers, len(tree.markdown) + len(tree.mdx))) as pool:
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
    tree: _Tree,
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
    facets = _facets(manifests.values())
    resolver = _SettingsResolver(manifests)
    root_manifest = manifests.get("")
    site = detect_site(root, site_config, root_manifest.site if root_manifest is not None else None)
    findings.extend(site.findings)
    pages = SitePages(site, root) if site.recognised else None
    paths = tree.markdown
    if site.reads_mdx:
        paths = sorted([*tree.markdown, *tree.mdx])
    if site.generator == "docusaurus":
        # ``_``-prefixed files and folders are partials, not pages: pages that import them show them.
        paths = [path for path in paths if not any(part.startswith("_") for part in path.split("/"))]
    elif tree.mdx:
        findings.append(_mdx_unread(tree.mdx, site))
    jobs: list[Job] = []
    for path in paths:
        data = source.read(path, findings, rule="unreadable-file")
        text = _decode(data, path, findings) if data is not None else None
        if text is None or data is None:
            continue
        contents[path] = data
        if pages is not None:
            text = pages.prepare(path, text)
        jobs.append((text, path, resolver.settings(path)))
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
            files.append(chunked)
    for chunked in files:
        findings.extend(chunked.findings)
        findings.extend(_check_declarations(chunked, facets))
    defaulted = [file.path for file in files if not file.strategy_explicit]
    if defaulted:
        findings.append(default_strategy_summary(defaulted, root))
    for manifest in manifests.values():
        findings.extend(_check_manifest_metadata(manifest, facets))
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
        taxonomy=_merged_taxonomy(manifests.values()),
        embedding=root_manifest.embedding if root_manifest is not None else None,
        library_version=root_manifest.library_version if root_manifest is not None else None,
        manifests=manifests,
        site=site,
        urls=pages.urls if pages is not None else {},
        stub_chunks=pages.stub_chunks if pages is not None else 0,
        file_keys={job[1]: key for job, key in zip(jobs, keys, strict=True)} if cache is not None else {},
        prompts=prompts,
    )


def _template_text(
    source: _Files, path: str, findings: list[Finding], contents: dict[str, bytes]
) -> str | None:
    """A template's text (its bytes counted in the content hash), or None after a finding."""
    data = source.read(path, findings, rule="unreadable-file")
    text = _decode(data, path, findings) if data is not None else None
    if text is not None and data is not None:
        contents[path] = data
    return text


def _mdx_unread(paths: list[str], site: Site) -> SummaryFinding:
    count = len(paths)
    examples = ", ".join(paths[:SUMMARY_EXAMPLES]) + (
        f" and {count - SUMMARY_EXAMPLES} more" if count > SUMMARY_EXAMPLES else ""
    )
    why = "no Docusaurus config was found" if not site.recognised else f"{site.generator} does not read them"
    message = (
        f"{count} .mdx pages are not indexed ({examples}): {why}; pass --site-config "
        "docusaurus.config.js, or set site.generator in the root .docs-mcp.json"
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


def _content_hash(contents: Mapping[str, bytes]) -> str:
    digest = hashlib.sha256()
    for path in sorted(contents):
        # Length-prefixed so that no (path, bytes) sequence can collide with another.
        encoded = path.encode("utf-8")
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
        digest.update(len(contents[path]).to_bytes(8, "big") + contents[path])
    return digest.hexdigest()


def _walk(root: Path) -> _Tree:
    """Collect markdown files and manifests; skip hidden folders, templates and outside links."""
    tree = _Tree([], [], [], [], [])
    real_root = root.resolve()
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        # Hidden folders (.git, .venv, .github) are tooling, never documentation.
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        relative_folder = Path(folder).relative_to(root).as_posix()
        prefix = "" if relative_folder == "." else relative_folder + "/"
        for name in filenames:
            is_manifest = name == MANIFEST_NAME
            mdx = _is_mdx(name)
            template = is_template(name)
            if not is_manifest and not mdx and not template and not _is_markdown(name):
                continue
            full = Path(folder, name)
            kind = special_file_kind(full)  # None also when it cannot be stat'ed: reading reports it
            if kind is not None:
                tree.special.append((prefix + name, kind))
            elif full.is_symlink() and not _resolves_inside(full, real_root):
                tree.outside.append(prefix + name)
            else:
                kept = tree.manifests if is_manifest else tree.mdx if mdx else tree.markdown
                (tree.templates if template else kept).append(prefix + name)
    tree.markdown.sort()
    tree.manifests.sort()
    tree.outside.sort()
    tree.special.sort()
    return tree


def _resolves_inside(link: Path, real_root: Path) -> bool:
    try:
        return link.resolve().is_relative_to(real_root)
    except (OSError, RuntimeError):  # a loop (RuntimeError before Python 3.13): reading reports it
        return True


def _is_markdown(name: str) -> bool:
    """An indexed markdown file name: ``*.md``, not hidden, not a prompt template."""
    return not name.startswith(".") and name.endswith(".md") and not is_template(name)


def _is_mdx(name: str) -> bool:
    return not name.startswith(".") and name.endswith(".mdx")


def _decode(data: bytes, path: str, findings: list[Finding]) -> str | None:
    try:
        # Strict: a file that is not UTF-8 would index as mojibake. A BOM stays for the chunker.
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        byte = data[error.start : error.start + 1].hex()
        message = f"not valid UTF-8: byte 0x{byte} at offset {error.start}; re-save the file as UTF-8"
        findings.append(Finding(path, line, "error", message, "invalid-encoding"))
        return None


class _SettingsResolver:
    """Nearest-manifest lookup, cached per folder: the corpora have thousands of files in few folders."""

    def __init__(self, manifests: Mapping[str, DocsManifest]) -> None:
        self._manifests = manifests
        self._governing: dict[str, DocsManifest | None] = {}

    def governing(self, folder: str) -> DocsManifest | None:
        if folder not in self._governing:
            found = self._manifests.get(folder)
            if found is None and folder:
                parent = folder.rpartition("/")[0]
                found = self.governing(parent)
            self._governing[folder] = found
        return self._governing[folder]

    def settings(self, path: str) -> FileSettings:
        manifest = self.governing(path.rpartition("/")[0])
        return manifest.settings_for(path) if manifest is not None else FileSettings()


def _facets(manifests: Iterable[DocsManifest]) -> dict[str, FacetSpec]:
    names: set[str] = set()
    allowed: dict[str, list[str]] = {}
    for manifest in manifests:
        names.update(manifest.facet_keys)
        for key, entry in manifest.taxonomy.items():
            if entry.values is not None:
                allowed.setdefault(key, []).extend(entry.values)
    return {
        name: FacetSpec(name, tuple(sorted(set(allowed[name]))) if name in allowed else None)
        for name in sorted(names)
    }


def _merged_taxonomy(manifests: Iterable[DocsManifest]) -> dict[str, TaxonomyEntry]:
    merged: dict[str, TaxonomyEntry] = {}
    for manifest in manifests:
        for key, entry in manifest.taxonomy.items():
            seen = merged.get(key)
            if seen is None:
                merged[key] = entry
                continue
            values = (
                None
                if seen.values is None and entry.values is None
                else (tuple(sorted({*(seen.values or ()), *(entry.values or ())})))
            )
            aliases = {
                value: tuple(dict.fromkeys([*seen.aliases.get(value, ()), *entry.aliases.get(value, ())]))
                for value in sorted({*seen.aliases, *entry.aliases})
            }
            merged[key] = TaxonomyEntry(
                values=values,
                vector_collapse=seen.vector_collapse or entry.vector_collapse,
                resources=tuple(sorted({*seen.resources, *entry.resources})),
                aliases=aliases,
            )
    return dict(sorted(merged.items()))


def _value_problem(key: str, value: object, facets: Mapping[str, FacetSpec]) -> tuple[str, str] | None:
    """(rule, message) when ``key: value`` breaks the taxonomy, else None."""
    if not isinstance(value, str):
        kind = "null" if value is None else type(value).__name__
        return (
            "invalid-metadata",
            f"metadata value of {key!r} must be a string, got {kind} {value!r}; quote it",
        )
    spec = facets.get(key)
    if spec is None:
        return "unknown-metadata-key", (
            f"unknown metadata key {key!r}; declare it in a .docs-mcp.json taxonomy (or metadata) "
            "so it becomes a search facet"
        )
    if spec.allowed is not None and value not in spec.allowed:
        return "metadata-value-not-allowed", (
            f"metadata value {value!r} is not allowed for {key!r}; allowed: {', '.join(spec.allowed)} "
            "(add it to the taxonomy's properties to allow it)"
        )
    return None


def _check_declarations(chunked: ChunkedFile, facets: Mapping[str, FacetSpec]) -> list[Finding]:
    # The chunker may already have reported a non-string value; say it once per line.
    reported = {f.line for f in chunked.findings if f.rule == "invalid-metadata"}
    findings = []
    for declaration in chunked.metadata_declarations:
        problem = _value_problem(declaration.key, declaration.value, facets)
        if problem is None or (problem[0] == "invalid-metadata" and declaration.line in reported):
            continue
        findings.append(Finding(chunked.path, declaration.line, "error", problem[1], problem[0]))
    return findings


def _check_manifest_metadata(manifest: DocsManifest, facets: Mapping[str, FacetSpec]) -> list[Finding]:
    entries = [(f"metadata.{k}", k, v) for k, v in manifest.metadata.items()]
    for index, override in enumerate(manifest.overrides):
        entries.extend((f"overrides[{index}].metadata.{k}", k, v) for k, v in override.metadata.items())
    findings = []
    for where, key, value in entries:
        problem = _value_problem(key, value, facets)
        if problem is not None:
            findings.append(Finding(manifest.path, 0, "error", f"{where}: {problem[1]}", problem[0]))
    return findings
