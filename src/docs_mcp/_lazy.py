"""Lazy re-exports for the stage packages' public API (PEP 562 module ``__getattr__``).

A package writes each public name once, as a re-export under ``if TYPE_CHECKING:``
(``from docs_mcp.search.index import DocsIndex as DocsIndex``): that is what type checkers read, and
``lazy_exports`` reads the same lines from the package's source to build ``__all__`` and the
import-on-first-use map. So ``from docs_mcp.search import DocsIndex`` loads ``docs_mcp.search.index``
(and LanceDB) on first access, and ``import docs_mcp.search.types`` or the CLI's ``--help`` pay for
nothing they do not use. Internal: not part of the public API.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _declared(source: str) -> dict[str, str]:
    """``{name: module}`` for every ``from MODULE import NAME`` under a top-level ``if TYPE_CHECKING:``."""
    origin: dict[str, str] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    for alias in statement.names:
                        origin[alias.asname or alias.name] = statement.module
    return origin


def lazy_exports(package: str) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` for ``package``, from its ``TYPE_CHECKING`` imports.

    A resolved name is stored on the package, so each is imported once.
    """
    module_file = sys.modules[package].__file__
    if module_file is None:
        raise ImportError(f"{package} has no source file to read its public names from")
    origin = _declared(Path(module_file).read_text(encoding="utf-8"))

    def __getattr__(name: str) -> Any:
        module = origin.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *origin})

    return sorted(origin), __getattr__, __dir__
