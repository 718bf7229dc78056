"""Page URLs of a site: where the generator publishes each page, and the anchor of each heading.

- mkdocs: ``site_url`` + the page's path without ``.md`` (``index.md``/``README.md`` name their
  folder), ending in ``/`` with ``use_directory_urls`` (the default), else in ``.html``; anchors are
  Python-Markdown's ``toc`` slugs (``Hello, World`` -> ``hello-world``).
- Docusaurus: ``url`` + ``baseUrl`` + the docs route (``docs/`` unless ``routeBasePath`` says) + the
  page's ``slug`` (absolute, or relative to its folder) or its folder + ``id`` (else its file name,
  number prefixes such as ``01-`` dropped); anchors are GitHub's slugs (``github-slugger``).
- Sphinx: ``html_baseurl`` + the page's path + ``.html``; anchors are docutils ids.
- a docs manifest's ``site.url_template`` for anything else: ``{path}`` (the page's path without
  its extension), ``{route}`` (mkdocs-style directory route) and ``{anchor}`` (``#slug`` or "").

An explicit heading id (``## Title {#my-id}``) is the anchor when the page gives one. No base URL
known: no URL at all (never a guessed one).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from pathlib import PurePosixPath
from urllib.parse import quote

from docs_mcp.corpus.site import Site

__all__ = ["anchor", "page_url"]

_FRONT_KEY = re.compile(r"^(slug|id)\s*:\s*['\"]?(.*?)['\"]?\s*$", re.MULTILINE)
_NUMBER_PREFIX = re.compile(r"^\d+[-_.]")
_MARKDOWN_CHARS = re.compile(r"[`*_~]")


def page_url(site: Site, path: str, front_matter: str = "") -> str | None:
    """The URL of the page at ``path`` (relative to the docs folder), without anchor, or None."""
    pure = PurePosixPath(path)
    stem_path = pure.with_suffix("").as_posix()
    directory_route = _directory_route(pure, directory=True)
    if site.url_template:
        return (
            site.url_template.replace("{path}", stem_path)
            .replace("{route}", directory_route)
            .replace("{anchor}", "")
        )
    if site.url is None:
        return None
    if site.generator == "docusaurus":
        route = _docusaurus_route(pure, dict(_FRONT_KEY.findall(front_matter)))
    elif site.generator == "sphinx":
        route = f"{stem_path}.html"
    else:
        route = _directory_route(pure, directory=site.use_directory_urls)
    return site.url + quote(route.lstrip("/"), safe="/#:@-._~!$&'()*+,;=")


def _directory_route(pure: PurePosixPath, directory: bool) -> str:
    folder = pure.parent.as_posix()
    folder = "" if folder == "." else folder + "/"
    if pure.stem.lower() in ("index", "readme"):
        return folder if directory else folder + "index.html"
    return f"{folder}{pure.stem}/" if directory else f"{folder}{pure.stem}.html"


def _docusaurus_route(pure: PurePosixPath, front: Mapping[str, str]) -> str:
    folders = [_NUMBER_PREFIX.sub("", part) for part in pure.parent.parts]
    folder = "/".join(folders)
    slug = front.get("slug")
    if slug:
        return slug.lstrip("/") if slug.startswith("/") else "/".join(p for p in (folder, slug) if p)
    name = front.get("id") or _NUMBER_PREFIX.sub("", pure.stem)
    if (not front.get("id") and name.lower() in ("index", "readme")) or (folders and name == folders[-1]):
        return folder + "/" if folder else ""
    return "/".join(p for p in (folder, name) if p)


def anchor(site: Site, heading: str) -> str:
    """The anchor the generator gives a heading of text ``heading``."""
    text = _MARKDOWN_CHARS.sub("", heading).strip()
    if site.generator == "docusaurus":
        return re.sub(r"[^\w\- ]", "", text.lower(), flags=re.UNICODE).replace(" ", "-")
    if site.generator == "sphinx":
        ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
        return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    value = re.sub(r"[^\w\s-]", "", ascii_text).strip().lower()
    return re.sub(r"[-\s]+", "-", value)
