"""Mintlify: ``docs.json`` (or the older ``mint.json``) in the docs folder.

The config (JSON) gives ``name`` and ``description``; Mintlify configs carry no site URL, so hits
carry one only through the docs manifest's ``site.url`` or ``url_template``. Pages are ``.mdx`` and
``.md``, titled by their front matter ``title``; ``snippets/`` holds partials. Routes: the path
without its suffix (``index`` naming its folder); anchors are GitHub's slugs. Syntax: its built-in
components (``<Card>``, ``<Steps>``, ``<Note>``...) keep their text, MDX import/export lines go.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from docs_mcp.corpus.sites.base import Site, SiteGenerator, broken, config_head, github_slug
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["Mintlify"]


class Mintlify(SiteGenerator):
    name = "mintlify"
    config_names = ("docs.json", "mint.json")
    config_folders = (".",)
    extensions = (".md", ".mdx")

    def owns(self, config: Path, docs_dir: Path) -> bool:
        text = config_head(config)
        if text is None:
            return False
        return config.name == "mint.json" or "mintlify" in text or '"navigation"' in text

    def read(self, path: Path, text: str) -> Site:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as error:
            return broken(path, path.parent, f"site config {path} is not valid JSON ({error})")
        if not isinstance(data, dict):
            return broken(path, path.parent, f"site config {path} is not a JSON object")
        name, description = data.get("name"), data.get("description")
        return Site(
            generator=self.name,
            config=path,
            repo_root=path.parent,
            name=name if isinstance(name, str) and name else None,
            description=description if isinstance(description, str) else None,
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name, mdx=True, families=frozenset(["docusaurus"]))

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return path.split("/", 1)[0] in ("snippets", "_snippets")

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        stem = page.with_suffix("").as_posix()
        return stem.removesuffix("index").rstrip("/") if page.stem == "index" else stem

    def anchor(self, heading: str) -> str:
        return github_slug(heading)
