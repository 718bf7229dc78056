"""mdBook: ``book.toml`` in the folder above the docs folder (``[book] src``, ``src`` by default),
with the table of contents in ``SUMMARY.md``.

The config (TOML) gives the book's ``title`` and ``description``, and ``[output.html] site-url``
when it is an absolute http(s) URL. Only pages ``SUMMARY.md`` lists are pages (the book builds no
other); it is the nav, not a page. Routes: the page's path + ``.html`` (``README.md`` is
``index.html``). Syntax: ``{{#include file:anchor}}``, ``{{#include file:3:10}}``,
``{{#rustdoc_include}}`` and ``{{#playground}}`` pull the file's lines in (``ANCHOR:`` markers out),
``{{#title}}`` goes.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from docs_mcp.corpus.sites.base import (
    Site,
    SiteGenerator,
    broken,
    config_head,
    github_slug,
    http_url,
    markdown_links,
)
from docs_mcp.parse.site_dialect import Dialect
from docs_mcp.parse.site_include import Include

__all__ = ["MdBook"]

_INCLUDE = re.compile(r"^(\s*)\{\{#(include|rustdoc_include|playground)\s+([^}\s]+)[^}]*\}\}\s*$")
_TITLE = re.compile(r"\{\{#title\s[^}]*\}\}")


def _include(content: str, in_code: bool) -> Include | None:
    match = _INCLUDE.match(content)
    if match is None:
        return None
    target = match.group(3)
    path, _, section = target.partition(":")
    anchor = section if section and not section.replace(":", "").isdigit() else None
    code = match.group(2) == "playground" and not in_code
    return Include(path if anchor else target, match.group(1), code=code, verbatim=in_code,
                   anchor=anchor, strip_markers=True)  # fmt: skip


def _drop_title(text: str) -> str:
    return _TITLE.sub("", text) if "{{#" in text else text


class MdBook(SiteGenerator):
    name = "mdbook"
    config_names = ("book.toml",)
    config_folders = ("..",)

    def owns(self, config: Path, docs_dir: Path) -> bool:
        source = _book(config).get("book", {}).get("src", "src")
        return (config.parent / str(source)).resolve() == docs_dir.resolve()

    def read(self, path: Path, text: str) -> Site:
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as error:
            return broken(path, path.parent, f"site config {path} is not valid TOML ({error})")
        book: dict[str, Any] = _table(data, "book")
        html = _table(_table(data, "output"), "html")
        title, description = book.get("title"), book.get("description")
        docs_dir = (path.parent / str(book.get("src", "src"))).resolve()
        return Site(
            generator=self.name,
            config=path,
            repo_root=path.parent,
            name=title if isinstance(title, str) and title else None,
            url=http_url(html.get("site-url")),
            use_directory_urls=False,
            description=description if isinstance(description, str) else None,
            titles=_summary(docs_dir),
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(
            self.name, families=frozenset(["plain"]), line_rules=(_drop_title,), include_rules=(_include,)
        )

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return path == "SUMMARY.md" or (bool(site.titles) and path not in site.titles)

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        stem = page.with_suffix("").as_posix()
        return stem[: -len("README")] + "index.html" if page.stem == "README" else f"{stem}.html"

    def anchor(self, heading: str) -> str:
        return github_slug(heading)

    def titles(self, site: Site, docs_dir: Path) -> dict[str, str]:
        return dict(site.titles)


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _book(config: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(config.read_text(encoding="utf-8")[:1_000_000])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return {}


def _summary(docs_dir: Path) -> dict[str, str]:
    """Page path -> its title in ``SUMMARY.md`` (links without a page, ``()``, are drafts: left out)."""
    text = config_head(docs_dir / "SUMMARY.md")
    if text is None:
        return {}
    return {
        PurePosixPath(target.split("#")[0].removeprefix("./")).as_posix(): title
        for title, target in markdown_links(text)
        if "://" not in target and target.split("#")[0].endswith(".md")
    }
