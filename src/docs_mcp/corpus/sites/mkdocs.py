"""MkDocs (and Material for MkDocs): ``mkdocs.yml`` in the docs folder or the folder above it.

The config is loaded with the YAML safe loader, its ``!!python/...`` and ``!ENV`` tags read as
nothing, ``INHERIT`` followed inside its folder. Routes: the page's path without ``.md``, ending in
``/`` with ``use_directory_urls`` (the default), else in ``.html``; anchors are Python-Markdown's
``toc`` slugs. Syntax: the ``mkdocs`` family (admonitions, tabs, blocks, autodoc stubs, snippets,
code annotations); macros when a macros plugin is configured.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from docs_mcp.corpus.sites.base import Site, SiteGenerator, broken, directory_route, http_url, owns_docs_key
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["MkDocs", "load_mkdocs_config"]

_INHERIT_DEPTH = 5
_DOCS_DIR_KEY = re.compile(r"^docs_dir\s*:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)


class _ConfigLoader(yaml.SafeLoader):
    """The safe loader, reading mkdocs' tags (``!!python/name:...``, ``!ENV``, ``!relative``) as None:
    they name code or the environment, which a config read as data cannot have."""


def _tag_as_none(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> None:
    return None


_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", _tag_as_none)
_ConfigLoader.add_multi_constructor("!", _tag_as_none)


def load_yaml(text: str) -> Any:
    """YAML read as data (tags naming code or the environment read as None)."""
    return yaml.load(text, Loader=_ConfigLoader)


class MkDocs(SiteGenerator):
    name = "mkdocs"
    config_names = ("mkdocs.yml", "mkdocs.yaml")

    def owns(self, config: Path, docs_dir: Path) -> bool:
        return owns_docs_key(config, docs_dir, _DOCS_DIR_KEY)

    def read(self, path: Path, text: str) -> Site:
        try:
            data = load_mkdocs_config(path)
        except (yaml.YAMLError, ValueError, OSError, RecursionError, MemoryError) as error:
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            return broken(path, path.parent, f"site config {path} is not valid YAML ({detail})")
        names = [*_names(data.get("markdown_extensions") or []), *_names(data.get("plugins") or [])]
        extra = data.get("extra")
        description = data.get("site_description")
        return Site(
            generator=self.name,
            config=path,
            repo_root=path.parent,
            name=str(data["site_name"]) if data.get("site_name") else None,
            url=http_url(data.get("site_url")),
            use_directory_urls=data.get("use_directory_urls", True) is not False,
            variables=extra if isinstance(extra, dict) else {},
            macros=any("macros" in name for name in names),
            description=description if isinstance(description, str) else None,
            titles=_nav_titles(data.get("nav")),
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name, dict(site.variables) if site.macros else None)

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        return directory_route(page, directory=site.use_directory_urls)


def load_mkdocs_config(path: Path, depth: int = 0) -> dict[str, Any]:
    """``mkdocs.yml`` at ``path`` as data (bounded safe YAML), its ``INHERIT`` chain merged in."""
    data = load_yaml(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError("not a mapping")
    parent = data.pop("INHERIT", None)
    if isinstance(parent, str) and depth < _INHERIT_DEPTH:
        base_file = (path.parent / parent).resolve()
        if base_file.is_relative_to(path.parent.resolve()) and base_file.is_file():
            return _merged(load_mkdocs_config(base_file, depth + 1), data)
    return data


def _merged(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in child.items():
        out[key] = (
            _merged(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
        )
    return out


def _nav_titles(nav: object, depth: int = 0) -> dict[str, str]:
    """Page path -> title of the ``nav:`` entries written ``- Title: page.md`` (nested sections too)."""
    found: dict[str, str] = {}
    for entry in nav if isinstance(nav, list) and depth < 10 else ():
        for title, value in entry.items() if isinstance(entry, dict) else ():
            if isinstance(value, str) and value.endswith(".md"):
                found[value] = str(title)
            elif isinstance(value, list):
                found.update(_nav_titles(value, depth + 1))
    return found


def _names(entries: object) -> list[str]:
    """The names of mkdocs extensions or plugins: a list (of names or one-key mappings) or a mapping."""
    if isinstance(entries, dict):
        return [str(key) for key in entries]
    if isinstance(entries, list):
        return [str(next(iter(e))) if isinstance(e, dict) and e else str(e) for e in entries]
    return []
