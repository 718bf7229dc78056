"""Astro Starlight: ``astro.config.{mjs,ts,js}`` using the ``starlight(...)`` integration, three
folders above the docs folder (``src/content/docs/``) or beside it.

The config is scanned for ``starlight({ title: ... })``, its ``description`` and the site's ``site:``
URL (the last http(s) literal of its value: ``site: process.env.X || 'https://...'``); never run.
Pages are ``.md`` and ``.mdx``, titled by their front matter ``title`` (Starlight shows it as the
page's heading). Routes: the lower-cased path, ``index`` naming its folder, ending in ``/``; anchors
are GitHub's slugs. Syntax: ``:::note`` asides, JSX components (their text kept), MDX import/export.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from docs_mcp.corpus.sites.base import Site, SiteGenerator, directory_route, github_slug, http_url
from docs_mcp.corpus.sites.js_config import js_values
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["Starlight", "last_http_literal"]

_URL_LITERAL = re.compile(r"""['"`](https?://[^'"`\s]+)['"`]""")


def last_http_literal(text: str, key: str) -> str | None:
    """The last http(s) string literal on the line of ``key:`` (a value with a fallback)."""
    match = re.search(rf"\b{re.escape(key)}\s*:(.*)$", text, re.MULTILINE)
    found = _URL_LITERAL.findall(match.group(1)) if match else []
    return http_url(found[-1]) if found else None


class Starlight(SiteGenerator):
    name = "starlight"
    config_names = tuple(f"astro.config.{ext}" for ext in ("mjs", "ts", "mts", "js"))
    config_folders = ("../../..", ".", "..")
    extensions = (".md", ".mdx")

    def owns(self, config: Path, docs_dir: Path) -> bool:
        try:
            return "starlight" in config.read_text(encoding="utf-8")[:1_000_000]
        except (OSError, UnicodeDecodeError):
            return False

    def read(self, path: Path, text: str) -> Site:
        start = text.find("starlight(")
        values = js_values(text[start:] if start >= 0 else text, ("title", "description"))
        base = js_values(text, ("base",)).get("base", "").strip("/")
        site_url = last_http_literal(text, "site")
        return Site(
            generator=self.name,
            config=path,
            repo_root=path.parent,
            name=values.get("title") or None,
            url=site_url + (base + "/" if base else "") if site_url else None,
            description=values.get("description"),
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name, mdx=True, families=frozenset(["docusaurus"]))

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        slug = front.get("slug")
        if slug:
            return slug.strip("/") + "/"
        return directory_route(PurePosixPath(page.as_posix().lower()), directory=True)

    def anchor(self, heading: str) -> str:
        return github_slug(heading)
