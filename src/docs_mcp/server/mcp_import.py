"""Import the MCP SDK's server without its client package.

``mcp/__init__.py`` imports the whole client (``mcp.client``: the session, its stdio and
Streamable HTTP transports, the in-memory transport) and ``mcp/server/__init__.py`` the high-level
``MCPServer`` framework with its resource templates and auth settings: neither is used by this
server. Before the server stack is first imported, :func:`install_lazy_mcp` registers both packages
as lazy modules (the mechanism of :mod:`docs_mcp.store.lancedb_import`): each name their
``__init__`` exports is imported on first access, so ``from mcp import Client`` still works.

What stays, measured with ``python -X importtime``: ``mcp.server.lowlevel.server`` imports starlette,
sse_starlette (and through it uvicorn) and the Streamable HTTP transport at module level, for its
``streamable_http_app`` method, so a stdio server loads them too; the SDK has no seam to avoid that
short of replacing its ``Server`` class. ``tests/server/test_imports.py`` pins both what is deferred
and what is not; ``benchmarks/test_server.py::test_cold_start_to_tools_list`` measures the start.
"""

from __future__ import annotations

from docs_mcp.store.lancedb_import import install_lazy_packages

__all__ = ["LAZY_PACKAGES", "install_lazy_mcp"]

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"mcp": "2.3"}

LAZY_PACKAGES = ("mcp", "mcp.server")


def install_lazy_mcp() -> bool:
    """Register the lazy ``mcp`` packages unless the SDK is already imported; True when in place
    (False also when a future ``__init__`` holds more than imports and constants: then the SDK
    imports the ordinary way)."""
    return install_lazy_packages(LAZY_PACKAGES)
