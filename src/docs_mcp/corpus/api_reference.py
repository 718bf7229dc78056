"""Where a site's API reference comes from: the Python source folders its config names, read as data.

- mkdocs: the mkdocstrings python handler's ``paths`` (relative to ``mkdocs.yml``; a path that is
  itself a package, ``src/agents``, also gives its parent) and its ``options`` (the defaults every
  ``:::`` stub is read with; ``docstring_style``);
- Sphinx: ``conf.py``'s ``sys.path.insert(0, os.path.abspath(".."))`` / ``append`` string
  arguments (the ``conf.py`` is parsed, never run); each docstring's style is inferred (Sphinx
  fields, or the Google/NumPy sections ``sphinx.ext.napoleon`` reads);
- always: the repository folder's ``src/`` and the repository folder itself.

Only folders inside the repository folder are searched: nothing outside it is read. The packages
are loaded once per build, on the first stub (``pyapi.ApiSource``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from docs_mcp.corpus.site import Site
from docs_mcp.corpus.sites.mkdocs import load_mkdocs_config
from docs_mcp.parse.api_markup import Markup
from docs_mcp.parse.api_stubs import Expanded, expand_api_stubs
from docs_mcp.parse.pyapi import ApiEntry, ApiOptions, ApiSource

__all__ = ["ApiReference"]

_MAX_CONFIG_BYTES = 1_000_000


class ApiReference:
    """The API reference of ``site`` (its repository folder ``repo``): stubs and autodoc resolved."""

    def __init__(self, site: Site, repo: Path) -> None:
        self.site = site
        self.repo = repo.resolve()
        self.options: dict[str, Any] = {}
        self.style: str | None = None
        self.paths = self._search_paths()
        self.objects = 0  # stubs and directives resolved
        self.missing = 0

    @cached_property
    def source(self) -> ApiSource:
        return ApiSource(self.paths, self.style, self.repo)

    def lookup(
        self, target: str, options: ApiOptions, markup: Markup, module: str | None
    ) -> tuple[ApiEntry | None, str | None]:
        """The entry for ``target`` (``rst_context.ApiLookup``), or None and why not."""
        entry, problem = self.source.document(target, options, markup, module)
        if entry is None:
            self.missing += 1
        else:
            self.objects += 1
        return entry, problem

    def expand(self, text: str) -> Expanded:
        """A markdown page with its ``:::`` stubs replaced by what they stand for."""
        return expand_api_stubs(text, self.lookup, self.options)

    # -- configuration -------------------------------------------------------------------------
    def _search_paths(self) -> list[Path]:
        config = self.site.config
        named: list[Path] = []
        if config is not None and self.site.generator == "mkdocs":
            named = self._mkdocs(config)
        elif config is not None and self.site.generator == "sphinx":
            named = self._sphinx(config)
        found: list[Path] = []
        for path in [*named, self.repo / "src", self.repo]:
            resolved = path.resolve()
            if not resolved.is_relative_to(self.repo) or not resolved.is_dir():
                continue
            for candidate in (
                (resolved.parent, resolved) if (resolved / "__init__.py").is_file() else (resolved,)
            ):
                if candidate.is_relative_to(self.repo) and candidate not in found:
                    found.append(candidate)
        return found

    def _mkdocs(self, config: Path) -> list[Path]:
        try:
            data = load_mkdocs_config(config)
        except Exception:
            return []
        handler = _python_handler(data.get("plugins"))
        options = handler.get("options")
        self.options = dict(options) if isinstance(options, Mapping) else {}
        selection = handler.get("selection")
        style = self.options.get("docstring_style") or (
            selection.get("docstring_style") if isinstance(selection, Mapping) else None
        )
        self.style = style if isinstance(style, str) else None
        paths = handler.get("paths")
        listed = paths if isinstance(paths, list) else ["."]
        return [config.parent / str(path) for path in listed if isinstance(path, str)]

    def _sphinx(self, config: Path) -> list[Path]:
        try:
            if config.stat().st_size > _MAX_CONFIG_BYTES:
                return []
            tree = ast.parse(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return []
        self.style = None  # each docstring's style inferred (Sphinx fields, or napoleon's Google/NumPy)
        paths: list[Path] = []
        for node in ast.walk(tree):
            if _is_sys_path_call(node):
                assert isinstance(node, ast.Call)
                for argument in node.args:
                    paths.extend(
                        config.parent / constant.value
                        for constant in ast.walk(argument)
                        if isinstance(constant, ast.Constant) and isinstance(constant.value, str)
                    )
        return paths


def _python_handler(plugins: object) -> Mapping[str, Any]:
    """mkdocstrings' python handler settings from mkdocs ``plugins`` (a list or a mapping)."""
    entries = plugins if isinstance(plugins, list) else [plugins] if isinstance(plugins, dict) else []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("mkdocstrings"), dict):
            handlers = entry["mkdocstrings"].get("handlers")
            python = handlers.get("python") if isinstance(handlers, dict) else None
            return python if isinstance(python, dict) else {}
    return {}


def _is_sys_path_call(node: ast.AST) -> bool:
    """``sys.path.insert(...)`` or ``sys.path.append(...)``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    return (
        node.func.attr in ("insert", "append")
        and isinstance(owner, ast.Attribute)
        and owner.attr == "path"
        and isinstance(owner.value, ast.Name)
        and owner.value.id == "sys"
    )
