"""Where docs-mcp keeps what it can make again: pulled artifacts and the build caches."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CACHE_ENV = "DOCS_MCP_CACHE_DIR"


def default_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$DOCS_MCP_CACHE_DIR``, else ``$XDG_CACHE_HOME/docs-mcp``, else ``~/.cache/docs-mcp``."""
    environ = os.environ if env is None else env
    if environ.get(CACHE_ENV):
        return Path(environ[CACHE_ENV])
    base = Path(environ["XDG_CACHE_HOME"]) if environ.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "docs-mcp"
