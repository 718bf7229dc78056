"""VitePress: ``.vitepress/config.{ts,mts,js,mjs}`` in the docs folder.

The config is scanned for the literals of ``title``, ``description``, ``base``, ``cleanUrls``,
``srcExclude`` and the sitemap's ``hostname`` (the base URL); never run. A title the config imports
from elsewhere falls back to the home page's front matter ``title``. Routes: the page's path +
``.html`` (without it under ``cleanUrls``); anchors are VitePress' slugs. Syntax: ``::: tip``
containers, Vue components (their text kept), ``<script setup>`` and ``<style>`` blocks dropped,
``{{ expr }}`` interpolations dropped, ``<<< file#region`` code imports and ``<!--@include: file-->``.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from docs_mcp.corpus.sites.base import (
    Site,
    SiteGenerator,
    directory_route,
    front_matter,
    github_slug,
    http_url,
)
from docs_mcp.corpus.sites.js_config import js_values, string_list
from docs_mcp.parse.site_dialect import Dialect
from docs_mcp.parse.site_include import Include

__all__ = ["VitePress"]

_INTERPOLATION = re.compile(r"\{\{.*?\}\}")
_CODE_IMPORT = re.compile(r"^(\s*)<<<\s+(\S+?)(?:\{([^}]*)\})?(?:\s+\[[^\]]*\])?\s*$")
_MD_INCLUDE = re.compile(r"^(\s*)<!--\s*@include:\s*(\S+?)\s*-->\s*$")
_BLOCKS = (
    (re.compile(r"^\s*<script\b"), re.compile(r"</script>")),
    (re.compile(r"^\s*<style\b"), re.compile(r"</style>")),
)


_ATTRIBUTES_LINE = re.compile(r"^\s*\{\s*[#.][^{}]*\}\s*$")  # markdown-it-attrs' ``{#id}`` on its own line


def _drop_interpolations(text: str) -> str:
    if _ATTRIBUTES_LINE.match(text):
        return ""
    return _INTERPOLATION.sub("", text) if "{{" in text else text


def _include(content: str, in_code: bool) -> Include | None:
    """``<<< @/file.ts#region{1,2 ts}`` (a code import) or ``<!--@include: ./file.md{3,}-->``."""
    code = _CODE_IMPORT.match(content) if not in_code else None
    if code is not None:
        target, _, region = code.group(2).partition("#")
        language = (code.group(3) or "").split(" ")[-1].split(":")[0] or None
        return Include(target.removeprefix("@/"), code.group(1), code=True, anchor=region or None,
                       language=language if language and not language[0].isdigit() else None)  # fmt: skip
    markdown = _MD_INCLUDE.match(content) if not in_code else None
    if markdown is not None:
        target = re.sub(r"\{[\d,\s]*\}$", "", markdown.group(2))
        target, _, region = target.partition("#")
        return Include(target.removeprefix("@/"), markdown.group(1), anchor=region or None)
    return None


class VitePress(SiteGenerator):
    name = "vitepress"
    config_names = tuple(f".vitepress/config.{ext}" for ext in ("ts", "mts", "js", "mjs"))
    config_folders = (".",)

    def read(self, path: Path, text: str) -> Site:
        values = js_values(text, ("title", "description", "base", "hostname"), ("hostname",))
        docs_dir = path.parent.parent
        name = values.get("title") or _home_title(docs_dir)
        base = values.get("base", "/").strip("/")
        host = http_url(values.get("hostname"))
        url = host + (base + "/" if base else "") if host else None
        return Site(
            generator=self.name,
            config=path,
            repo_root=docs_dir.parent,
            name=name,
            url=url,
            use_directory_urls=bool(re.search(r"\bcleanUrls\s*:\s*true\b", text)),
            description=values.get("description"),
            excluded=tuple(string_list(text, "srcExclude")),
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(
            self.name,
            families=frozenset(["docusaurus"]),
            jsx=True,
            line_rules=(_drop_interpolations,),
            include_rules=(_include,),
            drop_blocks=_BLOCKS,
        )

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return any(fnmatch.fnmatch(path, glob.removeprefix("**/")) or fnmatch.fnmatch(path, glob)
                   for glob in site.excluded)  # fmt: skip

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        route = directory_route(page, directory=False)
        if site.use_directory_urls and route.endswith(".html"):
            return route.removesuffix("index.html").removesuffix(".html")
        return route

    def anchor(self, heading: str) -> str:
        return github_slug(heading)


def _home_title(docs_dir: Path) -> str | None:
    try:
        data = front_matter((docs_dir / "index.md").read_text(encoding="utf-8")[:20_000])
    except (OSError, UnicodeDecodeError):
        return None
    hero = data.get("hero")
    for value in (data.get("title"), hero.get("name") if isinstance(hero, dict) else None):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None
