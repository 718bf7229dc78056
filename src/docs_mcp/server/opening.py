"""Opening one index folder for serving: at once and warmed (:func:`open_server`), or in the background
while the server already answers from the manifest (:func:`open_deferred`, :mod:`.deferred`).

Both watch the folder when asked (a rebuild into the same ``--out`` is swapped in between requests,
:mod:`docs_mcp.server.live`), and after a swap every server of the index says the new index's
instructions at its next ``initialize``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.server.lowlevel import Server

from docs_mcp.server.app import ServedIndex, create_server, served_index
from docs_mcp.server.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.cursor import cursor_key
from docs_mcp.server.deferred import DeferredIndex
from docs_mcp.server.listing import manifest_schemas
from docs_mcp.server.live import LiveIndex
from docs_mcp.server.warm import open_warm
from docs_mcp.store.index_manifest import IndexManifest, read_manifest

if TYPE_CHECKING:
    from docs_mcp.search.reader import IndexReader  # an opened DocsIndex

__all__ = ["DeferredServer", "ReadyServer", "open_deferred", "open_server"]


@dataclass(frozen=True)
class ReadyServer:
    """An opened, warmed index and its MCP server; ``startup_seconds`` is open + warm-up time.
    ``live`` holds the index being served (``index`` is the first one)."""

    index: IndexReader
    server: Server[Any]
    startup_seconds: float
    live: LiveIndex[ServedIndex]


def open_server(
    index_path: Path,
    *,
    key: bytes | None = None,
    watch: bool = False,
    on_swap: Callable[[ServedIndex, Path], None] | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> ReadyServer:
    """Open the index at ``index_path`` (an output folder of ``docs-mcp build``), warm it, build the server.

    ``watch``: reopen the folder when a build replaces it (see :mod:`docs_mcp.server.live`);
    ``on_swap`` runs after each swap; ``max_tokens`` is the default answer budget; ``feedback_log``
    turns on ``docs_feedback``.

    Raises:
        IndexUnavailable: the index is missing or unreadable.
        IndexCompatibilityError: the index was built by an incompatible version or provider.
    """
    started = time.perf_counter()
    signing_key = key if key is not None else cursor_key()
    servers: list[Server[Any]] = []
    swapped = _on_swap(servers, on_swap)
    live = LiveIndex.open(
        Path(index_path),
        lambda path: served_index(open_warm(path), signing_key, max_tokens, feedback_log),
        watch=watch,
        on_swap=swapped,
    )
    servers.append(create_server(live))
    return ReadyServer(live.current.index, servers[0], time.perf_counter() - started, live)


def _on_swap(
    servers: list[Server[Any]], then: Callable[[ServedIndex, Path], None] | None
) -> Callable[[ServedIndex, Path], None]:
    """What a swap does: the next ``initialize`` of every server says the new index's instructions,
    then ``then`` runs."""

    def swapped(served: ServedIndex, path: Path) -> None:
        for server in servers:
            server.instructions = served.instructions
        if then is not None:
            then(served, path)

    return swapped


@dataclass(frozen=True)
class DeferredServer:
    """An MCP server answering from the manifest while its index loads (:mod:`.deferred`)."""

    manifest: IndexManifest
    server: Server[Any]
    index: DeferredIndex[ServedIndex]


def open_deferred(
    index_path: Path,
    *,
    key: bytes | None = None,
    watch: bool = False,
    on_swap: Callable[[ServedIndex, Path], None] | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
    on_loaded: Callable[[], None] = lambda: None,
    on_failure: Callable[[], None] = lambda: None,
    opening_wait: float = 0.0,
) -> DeferredServer:
    """:func:`open_server`, the index opened in a background thread: the server answers
    ``initialize`` and ``tools/list`` from the manifest at once, and tool calls once it is open.

    Raises (before anything loads) ``IndexUnavailable`` for a missing or corrupt manifest and
    ``IndexCompatibilityError`` for another format; a table that fails to open later is each call's
    tool error (:meth:`DeferredIndex.settle` returns it; ``on_failure`` runs then);
    ``on_loaded`` runs once it is open. ``opening_wait``: how
    long the load yields to the opening exchange (a stdio session's ``tools/list``: see
    :mod:`docs_mcp.server.deferred`).
    """
    path = Path(index_path)
    manifest = read_manifest(path)
    signing_key = key if key is not None else cursor_key()
    servers: list[Server[Any]] = []
    swapped = _on_swap(servers, on_swap)

    def open_state(where: Path) -> ServedIndex:
        index = open_warm(where)
        # The schemas of what was published: the manifest's examples only (see docs_mcp.server.deferred).
        schemas = manifest_schemas(index.manifest, max_tokens, index.config.facets)
        return served_index(index, signing_key, max_tokens, feedback_log, schemas)

    deferred = DeferredIndex(
        manifest,
        lambda: LiveIndex.open(path, open_state, watch=watch, on_swap=swapped),
        where=path,
        on_loaded=on_loaded,
        on_failure=on_failure,
        opening_wait=opening_wait,
    )
    servers.append(create_server(deferred, max_tokens=max_tokens, feedback_log=feedback_log))
    deferred.start()
    return DeferredServer(manifest, servers[0], deferred)
