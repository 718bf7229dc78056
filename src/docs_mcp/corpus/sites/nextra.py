"""Nextra (2 and 3): ``theme.config.{js,jsx,ts,tsx}`` or a ``next.config.*`` using ``nextra``, in the
folder above the docs folder (``pages/`` or ``content/``).

The theme config is scanned for the site's name (its ``titleTemplate`` less ``%s``, else a literal
``title``); never run. Pages are ``.mdx`` and ``.md``; ``_app``, ``_document`` and other
``_``-prefixed files are not pages. Nav titles come from ``_meta.json`` / ``_meta.<locale>.json``.
A page file may carry its locale (``page.en-US.mdx``): routes drop it. Syntax: JSX components (their
text kept), MDX import/export lines.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from docs_mcp.corpus.sites.base import Site, SiteGenerator, config_head, github_slug
from docs_mcp.corpus.sites.js_config import js_values
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["Nextra"]

_LOCALE = re.compile(r"\.[a-z]{2}(?:-[A-Z]{2})?$")
_TEMPLATE = re.compile(r"""titleTemplate\s*:\s*(['"`])(.*?)\1""")


class Nextra(SiteGenerator):
    name = "nextra"
    config_names = (
        *(f"theme.config.{ext}" for ext in ("js", "jsx", "ts", "tsx")),
        *(f"next.config.{ext}" for ext in ("js", "mjs", "ts")),
    )
    config_folders = ("..",)
    extensions = (".md", ".mdx")

    def owns(self, config: Path, docs_dir: Path) -> bool:
        text = config_head(config)
        if text is None:
            return False
        return "nextra" in text and docs_dir.name in ("pages", "content")

    def read(self, path: Path, text: str) -> Site:
        name: str | None = None
        template = _TEMPLATE.search(text)
        if template is not None:
            name = template.group(2).replace("%s", "").strip(" -\u2013\u2014|:") or None
        if name is None:
            name = js_values(text, ("title",)).get("title") or None
        return Site(generator=self.name, config=path, repo_root=path.parent, name=name)

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name, mdx=True, families=frozenset(["docusaurus"]))

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return any(part.startswith("_") for part in path.split("/"))

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        stem = _LOCALE.sub("", page.with_suffix("").as_posix())
        return stem.removesuffix("index").rstrip("/") if stem.rpartition("/")[2] == "index" else stem

    def anchor(self, heading: str) -> str:
        return github_slug(heading)

    def titles(self, site: Site, docs_dir: Path) -> dict[str, str]:
        found: dict[str, str] = {}
        for meta in sorted(docs_dir.rglob("_meta*.json")):
            folder = meta.parent.relative_to(docs_dir).as_posix()
            prefix = "" if folder == "." else folder + "/"
            locale = meta.name.removeprefix("_meta").removesuffix(".json")  # "" or ".en-US"
            try:
                data = json.loads(meta.read_text(encoding="utf-8")[:1_000_000])
            except (OSError, UnicodeDecodeError, ValueError, RecursionError):
                continue
            for key, value in data.items() if isinstance(data, dict) else ():
                title = value.get("title") if isinstance(value, dict) else value
                if isinstance(title, str):
                    for suffix in (".mdx", ".md"):
                        found[f"{prefix}{key}{locale}{suffix}"] = title
        return found
