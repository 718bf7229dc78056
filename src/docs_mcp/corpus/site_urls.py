"""Page URLs of a site: where the generator publishes each page, and the anchor of each heading.

The generator's module (``docs_mcp.corpus.sites``) gives the route of a page under the site's base
URL and its anchor rule; a docs manifest's ``site.url_template`` serves any site (a generator or
none): ``{path}`` (the page's path without its extension), ``{route}`` (mkdocs-style directory
route) and ``{anchor}`` (``#slug`` or "").

An explicit heading id (``## Title {#my-id}``) is the anchor when the page gives one. No base URL
known: no URL at all (never a guessed one).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import quote

from docs_mcp.corpus.sites.base import Site, directory_route, generator_of, http_url

__all__ = ["anchor", "page_url"]

_FRONT_KEY = re.compile(r"^(slug|id|url)\s*:\s*['\"]?(.*?)['\"]?\s*$", re.MULTILINE)
_MARKDOWN_CHARS = re.compile(r"[`*_~]")


def page_url(site: Site, path: str, front_matter: str = "") -> str | None:
    """The URL of the page at ``path`` (relative to the docs folder), without anchor, or None."""
    pure = PurePosixPath(path)
    if site.url_template:
        url = (
            site.url_template.replace("{path}", pure.with_suffix("").as_posix())
            .replace("{route}", directory_route(pure, directory=True))
            .replace("{anchor}", "")
        )
        return url if http_url(url) is not None else None  # a template is a config: http(s) only
    if site.url is None:
        return None
    route = generator_of(site).route(pure, dict(_FRONT_KEY.findall(front_matter)), site)
    return site.url + quote(route.lstrip("/"), safe="/#:@-._~!$&'()*+,;=")


def anchor(site: Site, heading: str) -> str:
    """The anchor the generator gives a heading of text ``heading``."""
    return generator_of(site).anchor(_MARKDOWN_CHARS.sub("", heading).strip())
