"""``serve``: open an index and answer MCP clients over stdio or HTTP until told to stop.

The index is a local folder (reopened when ``docs-mcp build`` replaces it) or an ``oci://``
reference, pulled through the cache and, with ``refresh_interval``, followed as its tag moves.

Imports nothing heavy itself: the MCP server and LanceDB are imported while the index opens, with
the cyclic collector paused (see :mod:`docs_mcp.server.startup`), and only the chosen transport,
so serving over stdio never loads this package's HTTP module.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docs_mcp.errors import ConfigError, UsageError
from docs_mcp.redact import redact
from docs_mcp.server.budget import max_tokens_from_env, parse_max_tokens
from docs_mcp.server.mcp_import import install_lazy_mcp
from docs_mcp.server.options import (
    MIN_REFRESH_INTERVAL,
    OCI_SCHEME,
    HttpOptions,
    RegistryOptions,
    Transport,
)
from docs_mcp.server.startup import collector_paused

if TYPE_CHECKING:
    from docs_mcp.server.app import ReadyServer, ServedIndex

__all__ = ["serve"]
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def serve(
    index: Path | str | Sequence[str],
    *,
    transport: Transport = "stdio",
    http: HttpOptions | None = None,
    announce: Callable[[str], None] = lambda _message: None,
    registry: RegistryOptions | None = None,
    max_tokens: int | None = None,
    feedback_log: Path | None = None,
) -> None:
    """Blocking: serve ``index`` (a folder, or ``oci://REF``) over ``transport``; returns after
    SIGTERM/SIGINT (or end of input on stdio). ``announce`` receives one-line status messages (never
    stdout-bound: on stdio, stdout is the protocol). ``max_tokens`` is the default answer budget
    (None: ``DOCS_MCP_MAX_TOKENS``, else :data:`docs_mcp.server.budget.MAX_TOKENS_DEFAULT`);
    ``feedback_log`` turns on the ``docs_feedback`` tool, appending its reports to that file.

    Raises:
        IndexUnavailable: the index is missing or unreadable.
        IndexCompatibilityError: the index was built by an incompatible version or provider.
        ConfigError: a malformed reference, a refresh interval for a local folder, or a budget out of
            range.
        RegistryError: an ``oci://`` index could not be pulled (unauthorized, not found, rejected).

    ``index`` may also be the ``--index`` values (``REF``, or ``NAME=REF`` for each of several
    libraries, see :mod:`docs_mcp.server.library`); one bare ``REF`` is served as above.
    """
    install_lazy_mcp()  # before the server stack imports the SDK: see docs_mcp.server.mcp_import
    options = registry or RegistryOptions()
    if options.refresh_interval is not None and not (
        math.isfinite(options.refresh_interval) and options.refresh_interval >= MIN_REFRESH_INTERVAL
    ):
        raise UsageError(
            f"--refresh-interval {options.refresh_interval:g} is not a number of seconds of at least "
            f"{MIN_REFRESH_INTERVAL:g}"
        )
    budget = (
        max_tokens_from_env() if max_tokens is None else parse_max_tokens(str(max_tokens), "--max-tokens")
    )
    if not isinstance(index, (str, Path)):
        from docs_mcp.server.library import parse_index_specs

        specs = parse_index_specs(index)
        if len(specs) > 1 or specs[0].name is not None:
            with collector_paused():
                from docs_mcp.server.hub_serving import serve_hub
            serve_hub(
                specs,
                transport=transport,
                http=http,
                announce=announce,
                registry=registry,
                max_tokens=budget,
                feedback_log=feedback_log,
            )
            return
        index = specs[0].reference
    if options.library_refresh:
        from docs_mcp.server.library import LibrarySpec, RefreshIntervals

        RefreshIntervals(options.refresh_interval, options.library_refresh).check(
            [LibrarySpec(None, str(index))]
        )
    if _URL_SCHEME.match(str(index)) and not str(index).startswith(OCI_SCHEME):
        raise UsageError(
            f"--index {redact(str(index))!r} is a URL; give an index folder or oci://REGISTRY/REPOSITORY:TAG"
        )
    health: dict[str, Any] = {}
    if transport == "stdio" and not str(index).startswith(OCI_SCHEME):
        _serve_folder_on_stdio(Path(index), options, announce, budget, feedback_log)
        return
    if str(index).startswith(OCI_SCHEME):
        ready, stop_following = _from_registry(str(index), options, health, announce, budget, feedback_log)
    else:
        ready = _from_folder(Path(index), options, health, announce, budget, feedback_log)
        stop_following = _nothing
    health.update(_index_health(ready.live.current))
    manifest = ready.index.manifest
    summary = (
        f"index {ready.index.identity} ({manifest.chunk_count} chunks, {manifest.file_count} files) "
        f"ready in {ready.startup_seconds:.2f}s"
    )
    try:
        if transport == "stdio":
            from docs_mcp.server.stdio import serve_stdio

            serve_stdio(ready.server, on_ready=lambda: announce(f"serving {summary} on stdio"))
            return
        from docs_mcp.server.http import serve_http

        http_options = replace(http or HttpOptions(), health=health)

        def on_listening(url: str) -> None:
            announce(f"serving {summary} at {url}")
            if http_options.page:
                announce(f"search page at {url.removesuffix('/mcp')}/ (--no-page to turn it off)")

        serve_http(ready.server, http_options, on_listening=on_listening)
    finally:
        stop_following()


def _serve_folder_on_stdio(
    index: Path,
    options: RegistryOptions,
    announce: Callable[[str], None],
    max_tokens: int,
    feedback_log: Path | None,
) -> None:
    """Serve a local folder on stdio, answering ``initialize`` and ``tools/list`` from its manifest
    while the index stack loads in the background (:mod:`docs_mcp.server.deferred`).

    A table that fails to open is each tool call's error and, once the input ends, this function's:
    the server exits with that one line, as one that failed at start did."""
    if options.refresh_interval is not None:
        raise ConfigError("--refresh-interval follows a registry tag; give --index oci://REF")
    # "serving" is said once the signal handlers are in place and the index is open, as before.
    steps: set[str] = set()
    said = threading.Lock()

    def step(name: str) -> None:
        with said:
            steps.add(name)
            if steps == {"ready", "loaded"}:
                announce(f"serving {summary} ready in {opened.index.load_seconds or 0.0:.2f}s on stdio")

    with collector_paused():
        import anyio.to_thread

        from docs_mcp.server.app import open_deferred
        from docs_mcp.server.stdio import serve_stdio

        opened = open_deferred(
            index,
            watch=True,
            on_swap=lambda served, path: announce(
                f"{path} was rebuilt: now serving index {served.index.identity}"
            ),
            max_tokens=max_tokens,
            feedback_log=feedback_log,
            on_loaded=lambda: step("loaded"),
        )
    manifest = opened.manifest
    summary = f"index {manifest.identity} ({manifest.chunk_count} chunks, {manifest.file_count} files)"

    async def settled() -> object:
        # A short session must still report an index that cannot open (a signal cuts this short).
        return await anyio.to_thread.run_sync(opened.index.settle, abandon_on_cancel=True)

    serve_stdio(opened.server, on_ready=lambda: step("ready"), after_input=settled)
    failure = opened.index.settle() if opened.index.load_seconds is not None else None
    if failure is not None:
        raise failure


def _nothing() -> None:
    """Nothing to stop."""


def _from_folder(
    index: Path,
    options: RegistryOptions,
    health: dict[str, Any],
    announce: Callable[[str], None],
    max_tokens: int,
    feedback_log: Path | None,
) -> ReadyServer:
    """Open a local index folder, reopened whenever a build replaces it."""
    if options.refresh_interval is not None:
        raise ConfigError("--refresh-interval follows a registry tag; give --index oci://REF")

    def on_swap(served: ServedIndex, path: Path) -> None:
        health.update(_index_health(served))
        announce(f"{path} was rebuilt: now serving index {served.index.identity}")

    # The imports and the index's id maps live as long as the process: see docs_mcp.server.startup.
    with collector_paused():
        from docs_mcp.server.app import open_server

        return open_server(
            index, watch=True, on_swap=on_swap, max_tokens=max_tokens, feedback_log=feedback_log
        )


def _index_health(served: ServedIndex) -> dict[str, Any]:
    return {"index": served.index.identity, "index_version": served.index.manifest.docs_mcp_version}


def _from_registry(
    reference: str,
    options: RegistryOptions,
    health: dict[str, Any],
    announce: Callable[[str], None],
    max_tokens: int,
    feedback_log: Path | None,
) -> tuple[ReadyServer, Callable[[], None]]:
    """Pull, open and (with a refresh interval) follow ``reference``."""
    from docs_mcp.server.registry_source import PulledIndex, RegistrySource, follow

    source = RegistrySource(reference, cache_dir=options.cache_dir, insecure=options.insecure)
    if options.refresh_interval is not None and source.reference.digest:
        raise ConfigError("--refresh-interval follows a tag; this reference is pinned to a digest")
    pulled = source.start()
    health["artifact"] = {"reference": str(pulled.reference), "digest": pulled.digest}
    with collector_paused():
        from docs_mcp.server.app import open_server

        ready = open_server(pulled.path, max_tokens=max_tokens, feedback_log=feedback_log)
    if options.refresh_interval is None:
        return ready, _nothing

    def on_swap(new: PulledIndex) -> None:
        health.update(_index_health(ready.live.current))
        health["artifact"] = {"reference": str(new.reference), "digest": new.digest}
        announce(f"now serving {new.reference}")

    return ready, follow(source, ready.live, pulled, options.refresh_interval, on_swap)
