"""The pages of a recognised site, made plain before chunking and checked after it.

Before chunking, a page's generator syntax is rewritten (``docs_mcp.parse.site_syntax``), its
includes read from the repository folder only. After chunking: the chunk lines are mapped back to the
source's (where an include added lines), stub sections (a heading with nothing of its own but
``:::`` directives, macros or nothing) are dropped, a page made only of them is a ``stub-page``
finding, and every chunk gets its page URL and anchor.

Stubs are not indexed rather than indexed as a labelled chunk: a stub has no words to answer with
(its API docs are generated from code the docs folder does not hold), so a chunk of it could only
crowd out a page that answers; ``validate`` names every stub page so the gap is visible.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.chunks import Chunk, FileSettings
from docs_mcp.chunk.joining import metadata_only
from docs_mcp.chunk.rendering import PREAMBLE
from docs_mcp.corpus.api_reference import ApiReference
from docs_mcp.corpus.files import read_regular_file
from docs_mcp.corpus.site import Site
from docs_mcp.corpus.site_urls import anchor, page_url
from docs_mcp.corpus.sites.base import front_matter, generator_of
from docs_mcp.errors import Finding
from docs_mcp.limits import MAX_FILE_BYTES
from docs_mcp.parse.rst import read_rst
from docs_mcp.parse.rst_titles import RstTitles
from docs_mcp.parse.site_syntax import Dialect, Normalised, SyntaxNote, normalise_site_syntax

__all__ = ["STUB_PAGE_RULE", "STUB_SECTION_RULE", "SitePages"]

STUB_PAGE_RULE = "stub-page"
STUB_SECTION_RULE = "stub-section"
# Lines that say nothing to a reader: headings, comments, HTML anchors, attribute lists, blank quotes.
_CONTENT_FREE = re.compile(
    r"^\s*(?:#{1,6}(?:\s.*)?|<!--.*-->|<a\s+(?:id|name)=[^>]*>\s*(?:</a>)?|\{\s*[#.][^{}]*\}|>?\s*)$"
)
_MAX_INCLUDE_BYTES = 1_000_000
# API entries smaller than this (characters) join the chunk before them: halves openai-agents' chunks
# (3,510 -> 1,805) and every test question still finds its section first.
API_MIN_CHUNK = 200


@dataclass
class SitePages:
    """Per-page work of a recognised ``site`` over the docs folder ``root``."""

    site: Site
    root: Path
    normalised: dict[str, Normalised] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)  # chunk id -> URL
    stub_chunks: int = 0
    stub_pages: list[str] = field(default_factory=list)
    _resolved_repo: Path | None = None
    _nav: dict[str, str] | None = None  # nav titles by page path

    _dialect: Dialect | None = None
    _api: ApiReference | None = None
    _titles: RstTitles | None = None
    api_pages: set[str] = field(default_factory=set)  # pages holding API entries read from source

    def dialect(self) -> Dialect:
        if self._dialect is None:
            generator = generator_of(self.site)
            dialect = generator.dialect(self.site)
            reference = generator.api_reference(self.site)
            self._dialect = replace(dialect, api_reference=reference) if reference is not None else dialect
        return self._dialect

    def prepare(self, path: str, text: str) -> str:
        """``text`` of the page at ``path`` in plain markdown (what is chunked): a reStructuredText
        page read with docutils, API stubs replaced by the reference they stand for, a page without
        a title given the one its site shows."""
        resolved = self._api.objects if self._api is not None else 0
        if path.endswith(".rst"):
            result = read_rst(text, path, self._read_include, self.api().lookup, self.rst_titles())
        elif self.site.generator == "mkdocs" and ":::" in text:
            result = self._with_api(path, text)
        else:
            reader = generator_of(self.site).readers.get(Path(path).suffix)
            if reader is not None:
                text = reader(text, path)
            result = normalise_site_syntax(text, self.dialect(), self._read_include, path)
        title, description = self._title(path, text)
        if title and not _has_h1(result.text):
            result = _titled(result, title, description)
        self.normalised[path] = result
        if self._api is not None and self._api.objects > resolved:
            self.api_pages.add(path)
        return result.text

    def _title(self, path: str, text: str) -> tuple[str | None, str | None]:
        """The page's title as the site shows it (its front matter ``title``, else its nav title),
        and its front matter ``description``."""
        if self._nav is None:
            self._nav = generator_of(self.site).titles(self.site, self.root) if self.site.recognised else {}
        front = front_matter(text) if text.startswith("---") else {}
        title, description = front.get("title"), front.get("description")
        if not isinstance(title, str) or not title.strip():
            title = self._nav.get(path) or _file_title(path)
        return (title.strip() if title else None), (description if isinstance(description, str) else None)

    def settings(self, path: str, settings: FileSettings) -> FileSettings:
        """A page's chunking settings: a page of API entries with no strategy of its own is cut at
        every heading, so each documented object is a chunk (its anchor the hit's URL); an object of
        under ``API_MIN_CHUNK`` characters (an attribute and its line) joins the chunk before it."""
        if path not in self.api_pages or settings.strategy_explicit:
            return settings
        return replace(
            settings, strategy=replace(settings.strategy, chunk_by="h6", min_chunk_size=API_MIN_CHUNK)
        )

    def rst_titles(self) -> RstTitles:
        """The section and page titles of every ``.rst`` page of the docs folder (read on first use):
        what cross-references between pages show."""
        if self._titles is None:
            self._titles = RstTitles()
            for folder, dirnames, filenames in os.walk(self.root):
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                for name in filenames:
                    full = Path(folder, name)
                    if not name.endswith(".rst") or full.is_symlink():
                        continue
                    try:
                        text = read_regular_file(full, MAX_FILE_BYTES).decode("utf-8", errors="replace")
                    except OSError:
                        continue  # reading the page itself reports it
                    self._titles.add(full.relative_to(self.root).as_posix(), text)
        return self._titles

    def api(self) -> ApiReference:
        """The site's API reference (its source folders read on first use)."""
        if self._api is None:
            self._api = ApiReference(self.site, self._repo())
        return self._api

    def _with_api(self, path: str, text: str) -> Normalised:
        """A markdown page whose ``:::`` stubs are replaced, then made plain; lines mapped back."""
        expanded = self.api().expand(text)
        if not expanded.resolved and not expanded.notes:
            return normalise_site_syntax(text, self.dialect(), self._read_include, path)
        result = normalise_site_syntax(expanded.text, self.dialect(), self._read_include, path)
        origins = expanded.origins

        def source_line(line: int) -> int:
            return origins[min(max(line, 1), len(origins)) - 1] if origins else line

        if result.origins is None:
            result.heading_ids = {**expanded.heading_ids, **result.heading_ids}
            result.origins = list(origins)
        else:
            result.origins = [source_line(line) for line in result.origins]
        result.notes = [
            *expanded.notes,
            *(SyntaxNote(source_line(n.line), n.rule, n.message) for n in result.notes),
        ]
        return result

    def _repo(self) -> Path:
        if self._resolved_repo is None:
            self._resolved_repo = (self.site.repo_root or self.root).resolve()
        return self._resolved_repo

    def _read_include(self, target: str, page: str) -> tuple[str | None, str | None]:
        """An included file's text, looked for beside the page, then in the docs folder, then in the
        repository folder; never outside the repository folder."""
        if target.startswith(("http:", "https:")):
            return None, "a URL; remote includes are not fetched"
        repo = self._repo()
        page_folder = (self.root / page).parent
        escaped = False
        for base in (page_folder, self.root, repo):
            candidate = (base / target).resolve()
            if not candidate.is_relative_to(repo):
                escaped = True
                continue
            if candidate.is_file():
                try:
                    if candidate.stat().st_size > _MAX_INCLUDE_BYTES:
                        return None, f"over {_MAX_INCLUDE_BYTES:,} bytes"
                    return candidate.read_text(encoding="utf-8"), None
                except (OSError, UnicodeDecodeError) as error:
                    return None, f"cannot be read ({error})"
        if escaped:
            return None, f"outside the repository folder {repo}; never read"
        return None, f"no such file in {repo}"

    def finish(self, chunked: ChunkedFile) -> tuple[ChunkedFile, list[Finding]]:
        """The chunked page with source line numbers, stubs dropped; its findings about the site."""
        normalised = self.normalised.pop(chunked.path, None)  # a page is finished once: not kept
        if normalised is None:
            return chunked, []
        findings = [
            Finding(chunked.path, note.line, "warning", note.message, note.rule) for note in normalised.notes
        ]
        chunks = chunked.chunks
        if normalised.origins is not None:
            chunked = _mapped(chunked, normalised.origins)
            chunks = chunked.chunks
        kept = [chunk for chunk in chunks if not _is_stub(chunk)]
        page_title = next((chunk.title for chunk in kept if chunk.title), None) or (self._nav or {}).get(
            chunked.path
        )
        if page_title:  # text before the first heading is under the page's title, as the site shows it
            kept = [replace(chunk, heading=page_title) if not chunk.heading else chunk for chunk in kept]
        dropped = len(chunks) - len(kept)
        self.stub_chunks += dropped
        if (chunks and not kept) or not chunks:
            self.stub_pages.append(chunked.path)
            what = f", {normalised.autodoc} `:::` autodoc directives" if normalised.autodoc else ""
            findings.append(Finding(
                chunked.path, 0, "warning",
                f"stub page: no text besides headings{what}; not indexed (its content is generated by the "
                f"{self.site.generator} site from elsewhere: add prose or leave it out)", STUB_PAGE_RULE,
            ))  # fmt: skip
        elif dropped:
            first = next(chunk for chunk in chunks if _is_stub(chunk))
            sections = f"{dropped} sections have" if dropped > 1 else "1 section has"
            findings.append(Finding(
                chunked.path, first.start_line, "warning",
                f"{sections} no text besides their heading (`:::` directives, macros or nothing), the "
                f"first {first.heading!r}; not indexed", STUB_SECTION_RULE,
            ))  # fmt: skip
        self._urls(chunked.path, kept, normalised)
        return replace(chunked, chunks=kept), findings

    def _urls(self, path: str, chunks: list[Chunk], normalised: Normalised) -> None:
        text = normalised.text
        front = text.split("\n---", 1)[0] if text.startswith("---") else ""
        page = page_url(self.site, path, front)
        if page is None:
            return
        explicit = _explicit_ids(normalised)
        for chunk in chunks:
            if not chunk.heading or chunk.level == 0:
                self.urls[chunk.id] = page
                continue
            key = _key(chunk.heading)
            if chunk.level == 1 and chunk.ordinal == 0:
                self.urls[chunk.id] = page
                continue
            self.urls[chunk.id] = f"{page}#{explicit.get(key) or anchor(self.site, chunk.heading)}"


def _file_title(path: str) -> str:
    """A title from the page's file name, as generators title a page nothing else names
    (``getting-started.en-US.md`` -> ``Getting started``; ``index`` and ``README`` by their folder)."""
    parts = PurePosixPath(path).with_suffix("").parts
    stem = parts[-1].split(".")[0]
    if stem.lower() in ("index", "readme", "_index") and len(parts) > 1:
        stem = parts[-2]
    words = re.sub(r"^\d+[-_.]?", "", stem).replace("-", " ").replace("_", " ").strip()
    return (words[:1].upper() + words[1:]) if words else stem


def _has_h1(text: str) -> bool:
    """Whether ``text`` has a level-1 heading outside code fences (ATX or setext)."""
    fence = ""
    previous = ""
    lines = text.split("\n")
    if lines and lines[0].rstrip() == "---":  # front matter: its ``# comments`` are no headings
        lines = lines[next((i + 1 for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), 0) :]
    for line in lines:
        marker = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
        if marker is not None:
            fence = "" if fence and marker.group(1).startswith(fence) else fence or marker.group(1)
        elif not fence and (
            re.match(r"^ {0,3}#(?:\s|$)", line) or (previous.strip() and re.match(r"^ {0,3}=+\s*$", line))
        ):
            return True
        previous = "" if fence else line
    return False


def _titled(normalised: Normalised, title: str, description: str | None) -> Normalised:
    """``normalised`` with ``# title`` after its front matter (and the description when the page has
    no text of its own), as the site shows it; the added lines map to the front matter's last line."""
    lines = normalised.text.split("\n")
    start = 0
    if lines and lines[0].rstrip() == "---":
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), 0)
    added = ["# " + " ".join(title.split()), ""]
    if description and not any(line.strip() for line in lines[start:]):
        added += [" ".join(description.split()), ""]
    origins = normalised.origins or list(range(1, len(lines) + 1))
    anchor_line = origins[start - 1] if start > 0 else 1
    return replace(
        normalised,
        text="\n".join([*lines[:start], *added, *lines[start:]]),
        origins=[*origins[:start], *([anchor_line] * len(added)), *origins[start:]],
        heading_ids={
            line + len(added) if line > start else line: v for line, v in normalised.heading_ids.items()
        },
    )


def _explicit_ids(normalised: Normalised) -> Mapping[str, str]:
    lines = normalised.text.split("\n")
    found: dict[str, str] = {}
    for number, identifier in normalised.heading_ids.items():
        if 0 < number <= len(lines):
            found.setdefault(_key(lines[number - 1].lstrip().lstrip("#")), identifier)
    return found


def _key(heading: str) -> str:
    return re.sub(r"[`*_\s]+", " ", heading).strip().casefold()


def _is_stub(chunk: Chunk) -> bool:
    """A chunk with nothing of its own but headings (and blank lines or comments); a preamble of
    only ``Key: value`` metadata lines too (it answers nothing the page's sections do not)."""
    lines = chunk.own_markdown.split("\n")
    if chunk.level == 0 and chunk.id.endswith("#" + PREAMBLE):
        return metadata_only(lines)
    return all(_CONTENT_FREE.match(line) for line in lines)


def _mapped(chunked: ChunkedFile, origins: list[int]) -> ChunkedFile:
    """``chunked`` with every line number of the normalised text turned into its source line."""

    def source_line(line: int) -> int:
        return origins[min(max(line, 1), len(origins)) - 1] if line > 0 else line

    return replace(
        chunked,
        chunks=[
            replace(c, start_line=source_line(c.start_line), end_line=source_line(c.end_line))
            for c in chunked.chunks
        ],
        findings=[replace(f, line=source_line(f.line)) for f in chunked.findings],
        oversized=[
            replace(o, line=source_line(o.line), heading_line=source_line(o.heading_line))
            for o in chunked.oversized
        ],
    )
