"""A site generator, as one small class: how its config is found and read, its pages and partials,
its routes and anchors, its syntax, its nav titles.

A generator module (``corpus/sites/<name>.py``) subclasses ``SiteGenerator`` and is listed in
``corpus/sites/__init__.py``; nothing else names it. ``Site`` is what reading a config gave: the
generator's name, the site name, base URL and the settings its routes and syntax need.

Configs are data, never code: YAML with the safe loader, TOML and JSON with their parsers, JavaScript
and Python scanned for literals. Every URL a config gives is held to http(s) here (``http_url``), the
one door configs' URLs come through, so a ``javascript:`` URL never reaches a hit.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar
from urllib.parse import urlsplit

from docs_mcp.errors import Finding
from docs_mcp.parse.site_dialect import ApiReference, Dialect

__all__ = [
    "SITE_CONFIG_RULE",
    "PageReader",
    "Site",
    "SiteGenerator",
    "broken",
    "config_head",
    "http_url",
    "owns_docs_key",
    "read_config_text",
]

SITE_CONFIG_RULE = "site-config"
PageReader = Callable[[str, str], str]  # (page text, page path) -> the page as markdown
MAX_CONFIG_BYTES = 1_000_000


@dataclass(frozen=True)
class Site:
    """What a docs folder's site generator says about it.

    ``repo_root`` is the folder includes may read from (the config's folder; the docs folder when
    there is no config): nothing outside it is ever read. ``url`` is the site's base URL ending in
    ``/`` (mkdocs ``site_url``; Docusaurus ``url`` + ``baseUrl`` + the docs route), None when unknown.
    """

    generator: str = "none"
    config: Path | None = None
    repo_root: Path | None = None
    name: str | None = None
    url: str | None = None
    url_template: str | None = None  # the docs manifest's, for a site whose routes are not known
    use_directory_urls: bool = True  # mkdocs: ``page/`` rather than ``page.html``
    variables: Mapping[str, Any] = field(default_factory=dict)  # mkdocs ``extra:`` (macros)
    macros: bool = False  # a macros plugin or extension renders ``{{ ... }}``
    myst: bool = False  # Sphinx with MyST markdown (``myst_parser`` / ``myst_nb``)
    description: str | None = None  # the config's one-line description of the site
    excluded: tuple[str, ...] = ()  # globs of files that are not pages (VitePress ``srcExclude``)
    titles: Mapping[str, str] = field(default_factory=dict)  # page path -> its nav title
    findings: tuple[Finding, ...] = ()  # problems reading the config

    @property
    def recognised(self) -> bool:
        return self.generator != "none"

    @property
    def reads_mdx(self) -> bool:
        """Whether the site's ``.mdx`` files are pages."""
        return ".mdx" in generator_of(self).extensions

    def to_dict(self, docs_dir: Path | None = None) -> dict[str, Any]:
        """What was found, JSON-ready (the index manifest's ``site`` key and validate's summary)."""
        config: str | None = None
        if self.config is not None:
            config = self.config.name
            if docs_dir is not None:
                try:
                    config = self.config.resolve().relative_to(docs_dir.resolve().parent).as_posix()
                except ValueError:
                    config = self.config.name
        return {
            "generator": self.generator,
            "config": config,
            "name": self.name,
            "url": self.url,
            "url_template": self.url_template,
        }


class SiteGenerator:
    """One site generator. Subclasses set the class attributes and override what differs."""

    name: ClassVar[str] = "none"
    config_names: ClassVar[tuple[str, ...]] = ()  # file names of its config
    # Where, relative to the docs folder, its config may sit (the first found wins).
    config_folders: ClassVar[tuple[str, ...]] = (".", "..")
    extensions: ClassVar[tuple[str, ...]] = (".md",)  # the suffixes of its pages
    # Pages that are not markdown, by suffix: a function of (text, path) giving the page as markdown
    # (Sphinx's reStructuredText reader plugs in here as ``{".rst": ...}`` with ``.rst`` in extensions).
    readers: ClassVar[Mapping[str, PageReader]] = {}

    def find_config(self, docs_dir: Path) -> Path | None:
        """Its config for ``docs_dir``, or None."""
        for folder in self.config_folders:
            for name in self.config_names:
                config = Path(os.path.normpath(docs_dir / folder / name))
                if config.is_file() and self.owns(config, docs_dir):
                    return config
        return None

    def owns(self, config: Path, docs_dir: Path) -> bool:
        """Whether the found ``config`` publishes ``docs_dir`` (a config above may name another folder)."""
        return True

    def read(self, path: Path, text: str) -> Site:
        """The site its config at ``path`` (of text ``text``) describes; problems become findings."""
        return Site(generator=self.name, config=path, repo_root=path.parent)

    def dialect(self, site: Site) -> Dialect:
        """The syntax its pages are read with."""
        return Dialect(self.name, families=frozenset(["plain"]))

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        """Whether the file at ``path`` (text ``text``) is a partial: included by pages, never a page."""
        return False

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        """The page's path under the base URL: by default its folder route (``a/b/`` for
        ``a/b.md``; ``index`` and ``README`` name their folder)."""
        return directory_route(page, directory=True)

    def anchor(self, heading: str) -> str:
        """The anchor it gives a heading: by default Python-Markdown's ``toc`` slug."""
        ascii_text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode()
        value = re.sub(r"[^\w\s-]", "", ascii_text).strip().lower()
        return re.sub(r"[-\s]+", "-", value)

    def titles(self, site: Site, docs_dir: Path) -> dict[str, str]:
        """Nav titles by page path (sidebar, SUMMARY, ``_meta``), read from its files as data; by
        default those its config gave (``Site.titles``)."""
        return dict(site.titles)

    def api_reference(self, site: Site) -> ApiReference | None:
        """The hook that turns an autodoc stub (``::: pkg.mod``, ``.. autoclass::``) into the API
        reference it stands for (resolved from source), or None: stubs are dropped as stubs."""
        return None


def directory_route(page: PurePosixPath, directory: bool) -> str:
    """``a/b/`` (``directory``) or ``a/b.html`` for ``a/b.md``; ``index``/``README`` name their folder."""
    folder = page.parent.as_posix()
    folder = "" if folder == "." else folder + "/"
    if page.stem.lower() in ("index", "readme", "_index"):
        return folder if directory else folder + "index.html"
    return f"{folder}{page.stem}/" if directory else f"{folder}{page.stem}.html"


def github_slug(heading: str) -> str:
    """GitHub's heading slug (``github-slugger``): lower case, punctuation out, spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.lower(), flags=re.UNICODE).replace(" ", "-")


def http_url(value: object) -> str | None:
    """``value`` as a base URL ending in ``/`` when it is an absolute http(s) URL, else None: any
    other scheme (``javascript:``, ``data:``), a relative path or a non-string never becomes a URL."""
    if not isinstance(value, str) or not value.strip():
        return None
    url = value.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or any(c in url for c in " <>\"'`"):
        return None
    return url if url.endswith("/") else url + "/"


def config_head(path: Path) -> str | None:
    """The first ``MAX_CONFIG_BYTES`` characters of a file a generator looks into (its config, its
    table of contents), or None when it cannot be read: enough to recognise or list, never a finding."""
    try:
        return path.read_text(encoding="utf-8")[:MAX_CONFIG_BYTES]
    except (OSError, UnicodeDecodeError):
        return None


def owns_docs_key(config: Path, docs_dir: Path, key: re.Pattern[str]) -> bool:
    """Whether ``config`` serves ``docs_dir``: it sits in it, or ``key``'s first group names a folder
    of that name (no such key: the generator's default ``docs``)."""
    if config.parent.resolve() == docs_dir.resolve():
        return True
    text = config_head(config)
    if text is None:
        return False
    found = key.search(text)
    return (Path(found.group(1)).name if found else "docs") == docs_dir.name


def read_config_text(path: Path) -> tuple[str | None, str | None]:
    """A config's text, or None and why (too big, unreadable)."""
    try:
        if path.stat().st_size > MAX_CONFIG_BYTES:
            return None, f"{path} is over {MAX_CONFIG_BYTES:,} bytes; not read"
        return path.read_text(encoding="utf-8"), None
    except (OSError, UnicodeDecodeError) as error:
        return None, f"cannot read site config {path}: {error}"


def broken(path: Path, repo_root: Path, message: str) -> Site:
    """The site of a config that could not be read: no generator, one finding."""
    finding = Finding("", 0, "warning", message + "; pass --site-config FILE or fix it", SITE_CONFIG_RULE)
    return Site(config=path, repo_root=repo_root, findings=(finding,))


def generator_of(site: Site) -> SiteGenerator:
    """The generator ``site`` was read by (the plain one for an unknown name)."""
    from docs_mcp.corpus.sites import generator_named  # the registry lists the modules that import this

    return generator_named(site.generator)


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)


def front_matter(text: str) -> dict[str, Any]:
    """A page's YAML front matter as data ({} when none or unreadable)."""
    import yaml

    match = _FRONT.match(text)
    if match is None:
        return {}
    try:
        data = yaml.safe_load(match.group(1))
    except (yaml.YAMLError, RecursionError, MemoryError):
        return {}
    return data if isinstance(data, dict) else {}


def markdown_links(text: str) -> list[tuple[str, str]]:
    """(title, target) of every ``[title](target)`` list item of a SUMMARY-style nav file."""
    return [
        (m.group(1).strip(), m.group(2).strip())
        for m in re.finditer(r"^\s*(?:[-*+]|\d+\.)?\s*\[([^\]]+)\]\(([^)\s]+)\)", text, re.MULTILINE)
    ]
