"""The MCP server: tools ``search_docs`` and ``get_doc`` over stdio or Streamable HTTP.

Public API: ``serve`` (blocking, what ``docs-mcp serve`` runs) with ``HttpOptions`` and
``RegistryOptions``, and for hosts that run their own transport ``open_server`` / ``create_server``;
loaded on first use. The other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.server.app import ReadyServer, create_server, open_server
    from docs_mcp.server.serving import (
        DEFAULT_HOST,
        DEFAULT_PORT,
        OCI_SCHEME,
        HttpOptions,
        RegistryOptions,
        Transport,
        serve,
    )

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "OCI_SCHEME",
    "HttpOptions",
    "ReadyServer",
    "RegistryOptions",
    "Transport",
    "create_server",
    "open_server",
    "serve",
]
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "docs_mcp.server.serving": [
            "DEFAULT_HOST",
            "DEFAULT_PORT",
            "OCI_SCHEME",
            "HttpOptions",
            "RegistryOptions",
            "Transport",
            "serve",
        ],
        "docs_mcp.server.app": ["ReadyServer", "create_server", "open_server"],
    },
)
