"""``serve``: open an index and answer MCP clients over stdio or HTTP until told to stop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Literal

from docs_mcp.server.app import open_server
from docs_mcp.server.http import HttpOptions, serve_http
from docs_mcp.server.startup import collector_paused
from docs_mcp.server.stdio import serve_stdio

Transport = Literal["stdio", "http"]


def serve(
    index_path: Path,
    *,
    transport: Transport = "stdio",
    http: HttpOptions | None = None,
    announce: Callable[[str], None] = lambda _message: None,
) -> None:
    """Blocking: serve the index at ``index_path`` over ``transport``; returns after SIGTERM/SIGINT
    (or end of input on stdio). ``announce`` receives one-line status messages (never stdout-bound:
    on stdio, stdout is the protocol).

    Raises:
        IndexUnavailable: the index is missing or unreadable.
        IndexCompatibilityError: the index was built by an incompatible version or provider.
    """
    with collector_paused():  # the index's id maps are as long-lived as the imported modules
        ready = open_server(index_path)
    manifest = ready.index.manifest
    summary = (
        f"index {ready.index.identity} ({manifest.chunk_count} chunks, {manifest.file_count} files) "
        f"ready in {ready.startup_seconds:.2f}s"
    )
    if transport == "stdio":
        serve_stdio(ready.server, on_ready=lambda: announce(f"serving {summary} on stdio"))
        return
    options = replace(
        http or HttpOptions(),
        health={"index": ready.index.identity, "index_version": manifest.docs_mcp_version},
    )
    serve_http(ready.server, options, on_listening=lambda url: announce(f"serving {summary} at {url}"))
