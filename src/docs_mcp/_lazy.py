"""Lazy re-exports for the stage packages' public API (PEP 562 module ``__getattr__``).

``from docs_mcp.search import DocsIndex`` loads ``docs_mcp.search.index`` (and LanceDB) on first
access, so ``import docs_mcp.search.types`` or the CLI's ``--help`` pay for nothing they do not use.
Internal: not part of the public API.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, Sequence[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package`` that import ``{module: [names]}`` on first use.

    A resolved name is stored on the package, so each is imported once.
    """
    origin = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = origin.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *origin})

    return __getattr__, __dir__
