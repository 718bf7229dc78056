"""Sphinx: ``conf.py`` in the docs folder (or its ``source/``), parsed with ``ast``, never run.

Literal assignments give ``project``, ``html_baseurl`` and ``extensions`` (MyST markdown with
``myst_parser`` / ``myst_nb``). Routes: the page's path + ``.html``; anchors are docutils ids.
Pages are ``.md`` (MyST) and ``.rst`` (read with docutils: :mod:`docs_mcp.parse.rst`, autodoc
directives resolved from the package source: :mod:`docs_mcp.corpus.api_reference`).
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from docs_mcp.corpus.sites.base import Site, SiteGenerator, broken, http_url
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["Sphinx"]

# A conf.py nested deeper than this (``x = ----...1``) is not parsed: CPython's parser would recurse
# past its limit (RecursionError) or exhaust memory on it (issue 33).
_MAX_NESTING = 200
_NESTING = re.compile(r"[-+~(\[{]\s*")


class Sphinx(SiteGenerator):
    name = "sphinx"
    config_names = ("conf.py",)
    config_folders = (".", "source")
    extensions = (".md", ".rst")

    def read(self, path: Path, text: str) -> Site:
        # conf.py sits in the docs folder (or its source/): includes may read the repository above it.
        repo_root = path.parent.parent.parent if path.parent.name == "source" else path.parent.parent
        deepest = _deepest_run(text)
        if deepest > _MAX_NESTING:
            message = (
                f"site config {path} nests {deepest} operators or brackets in a row (over {_MAX_NESTING}); "
                "not parsed"
            )
            return broken(path, path.parent, message)
        try:
            tree = ast.parse(text, filename=str(path))
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            return broken(path, path.parent, f"site config {path} is not valid Python ({detail})")
        values = _literals(tree)
        found = values.get("extensions")
        extensions: list[Any] = list(found) if isinstance(found, list | tuple) else []
        project = values.get("project")
        return Site(
            generator=self.name,
            config=path,
            repo_root=repo_root,
            name=project if isinstance(project, str) and project else None,
            url=http_url(values.get("html_baseurl")),
            use_directory_urls=False,
            myst=any(isinstance(e, str) and e.startswith(("myst_parser", "myst_nb")) for e in extensions),
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name)

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        return f"{page.with_suffix('').as_posix()}.html"

    def anchor(self, heading: str) -> str:
        ascii_text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode().lower()
        return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")


def _deepest_run(text: str) -> int:
    """The longest run of unary operators or opening brackets (what makes a parser recurse)."""
    deepest = 0
    for match in re.finditer(r"(?:[-+~(\[{]\s*){2,}", text):
        deepest = max(deepest, len(_NESTING.findall(match.group(0))))
    return deepest


def _literals(tree: ast.Module) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                continue
    return values
