"""The MCP server: tools ``search_docs`` and ``get_doc`` over stdio or Streamable HTTP.

Public API: ``serve`` (blocking, what ``docs-mcp serve`` runs) with ``HttpOptions`` (its ``auth``:
``AuthOptions``) and ``RegistryOptions``, and for hosts that run their own transport ``open_server`` /
``create_server``; loaded on first use. The other modules are implementation details.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.server.auth.gate import AuthOptions as AuthOptions
    from docs_mcp.server.hub.opening import ReadyServer as ReadyServer
    from docs_mcp.server.hub.opening import open_server as open_server
    from docs_mcp.server.startup.options import DEFAULT_HOST as DEFAULT_HOST
    from docs_mcp.server.startup.options import DEFAULT_PORT as DEFAULT_PORT
    from docs_mcp.server.startup.options import OCI_SCHEME as OCI_SCHEME
    from docs_mcp.server.startup.options import HttpOptions as HttpOptions
    from docs_mcp.server.startup.options import RegistryOptions as RegistryOptions
    from docs_mcp.server.startup.options import Transport as Transport
    from docs_mcp.server.startup.serving import serve as serve
    from docs_mcp.server.tools.app import create_server as create_server

__all__, __getattr__, __dir__ = lazy_exports(__name__)
