"""Docusaurus: ``docusaurus.config.js|ts|mjs|cjs|mts`` beside the docs folder.

The config is scanned for the literals of its top-level ``title``, ``tagline``, ``url`` and
``baseUrl`` and the docs plugin's ``routeBasePath``; never run. Pages are ``.md`` and ``.mdx``;
``_``-prefixed files and folders are partials. Routes: the page's ``slug`` (absolute, or relative to
its folder) or its folder + ``id`` (else its file name, number prefixes such as ``01-`` dropped);
anchors are GitHub's slugs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from docs_mcp.corpus.sites.base import Site, SiteGenerator, github_slug, http_url, owns_docs_key
from docs_mcp.corpus.sites.js_config import js_values
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["Docusaurus"]

_DOCS_PATH_KEY = re.compile(r"\bpath\s*:\s*['\"]([^'\"]+)['\"]")
_NUMBER_PREFIX = re.compile(r"^\d+[-_.]")


class Docusaurus(SiteGenerator):
    name = "docusaurus"
    config_names = tuple(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts"))
    extensions = (".md", ".mdx")

    def owns(self, config: Path, docs_dir: Path) -> bool:
        return owns_docs_key(config, docs_dir, _DOCS_PATH_KEY)

    def read(self, path: Path, text: str) -> Site:
        values = js_values(text, ("title", "tagline", "url", "baseUrl", "routeBasePath"), ("routeBasePath",))
        url: str | None = None
        base_url = http_url(values.get("url"))
        if base_url is not None:
            base = values.get("baseUrl", "/").strip("/")
            route = values.get("routeBasePath", "docs").strip("/")
            url = "/".join(part for part in (base_url.rstrip("/"), base, route) if part) + "/"
        return Site(
            generator=self.name,
            config=path,
            repo_root=path.parent,
            name=values.get("title") or None,
            url=url,
            description=values.get("tagline") or None,
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name, mdx=True)

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return any(part.startswith("_") for part in path.split("/"))

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        folders = [_NUMBER_PREFIX.sub("", part) for part in page.parent.parts]
        folder = "/".join(folders)
        slug = front.get("slug")
        if slug:
            return slug.lstrip("/") if slug.startswith("/") else "/".join(p for p in (folder, slug) if p)
        name = front.get("id") or _NUMBER_PREFIX.sub("", page.stem)
        if (not front.get("id") and name.lower() in ("index", "readme")) or (folders and name == folders[-1]):
            return folder + "/" if folder else ""
        return "/".join(p for p in (folder, name) if p)

    def anchor(self, heading: str) -> str:
        return github_slug(heading)
