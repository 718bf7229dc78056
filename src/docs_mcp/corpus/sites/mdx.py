"""MDX pages with no site config found: read as MDX (JSX components keep their text, import/export
lines and ``{/* comments */}`` go, ``:::note`` containers are labelled), ``_``-prefixed files being
partials. Recognised by the pages, not a config: the loader picks it for a folder that holds
``.mdx`` files and no generator's config."""

from __future__ import annotations

from docs_mcp.corpus.sites.base import Site, SiteGenerator, github_slug
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["Mdx"]


class Mdx(SiteGenerator):
    name = "mdx"
    extensions = (".md", ".mdx")

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name, mdx=True, families=frozenset(["docusaurus"]))

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return any(part.startswith("_") for part in path.split("/"))

    def anchor(self, heading: str) -> str:
        return github_slug(heading)
