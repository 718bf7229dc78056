"""``serve`` with several ``--index NAME=REF``: open every library, follow each on its own, serve them all.

Each library is opened like a single index: a folder is watched and reopened when rebuilt; an
``oci://`` reference is pulled through the cache and, with a refresh interval, its tag is polled by its
own thread, so one registry failing to answer leaves every other index (and its own current one)
serving. The cache is shared: each library holds a lease on the indexes it serves
(:mod:`docs_mcp.artifact.index_lease`, a lock per open file, so libraries of one process hold them
apart like processes do), and a refresh removes only unpacked indexes nobody holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError
from docs_mcp.server.app import ServedIndex, open_warm, served_index
from docs_mcp.server.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.cursor import cursor_key
from docs_mcp.server.hub import Hub, Library
from docs_mcp.server.hub_app import HubStates, create_hub_server
from docs_mcp.server.library import LibrarySpec, RefreshIntervals, check_facet_names
from docs_mcp.server.live import LiveIndex
from docs_mcp.server.options import OCI_SCHEME, HttpOptions, RegistryOptions, Transport
from docs_mcp.server.registry_source import PulledIndex, RegistrySource, follow

__all__ = ["ReadyHub", "open_hub", "serve_hub"]

_OPENING_AT_ONCE = 4


@dataclass
class ReadyHub:
    """Every library opened and warmed; ``stop`` ends the refresh threads."""

    hub: Hub
    server: Any
    states: HubStates
    startup_seconds: float
    health: dict[str, Any]
    stop: Callable[[], None]


def open_hub(
    specs: Sequence[LibrarySpec],
    registry: RegistryOptions | None = None,
    *,
    key: bytes | None = None,
    announce: Callable[[str], None] = lambda _message: None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> ReadyHub:
    """Open every library of ``specs`` (named), build the hub and its MCP server (answers within
    ``max_tokens`` by default; ``docs_feedback`` appending to ``feedback_log`` when given).

    Raises ``ConfigError`` (a bad spec or interval, a library given twice), ``IndexUnavailable``,
    ``IndexCompatibilityError`` or ``RegistryError`` naming the library at fault.
    """
    options = registry or RegistryOptions()
    intervals = RefreshIntervals(options.refresh_interval, options.library_refresh)
    if intervals and not any(s.reference.startswith(OCI_SCHEME) for s in specs):
        raise ConfigError("--refresh-interval follows registry tags; no --index is oci://REF")
    intervals.check(specs)
    started = time.perf_counter()
    signing_key = key if key is not None else cursor_key()
    health: dict[str, Any] = {}
    libraries: list[Library] = []
    followers: list[Callable[[], Callable[[], None]]] = []
    stops: list[Callable[[], None]] = []

    def opener_of(label: str) -> Callable[[Path], ServedIndex]:
        def opener(path: Path) -> ServedIndex:
            served = served_index(open_warm(path), signing_key)
            check_facet_names(label, served.tools.facets)  # at start, and on each swap (then refused)
            return served

        return opener

    def refresh_health(*_args: Any) -> None:
        health["indexes"] = [library.health() for library in libraries]

    def open_one(spec: LibrarySpec) -> tuple[Library, Callable[[], Callable[[], None]] | None]:
        assert spec.name is not None
        label = spec.label()
        opener = opener_of(label)
        if not spec.reference.startswith(OCI_SCHEME):
            live = LiveIndex.open(Path(spec.reference), opener, watch=True, on_swap=refresh_health)
            return _library(spec, live, spec.reference, None), None
        source = sources[spec]
        pulled = source.start()
        live = LiveIndex.open(pulled.path, opener, on_swap=refresh_health)
        interval = intervals.for_spec(spec)
        library = _library(spec, live, spec.reference, pulled.digest)
        library.refresh_interval = interval
        if interval is None:
            return library, None
        return library, _follower(source, library, pulled, interval, refresh_health, announce)

    # Every reference is checked before anything is pulled: a digest cannot be followed.
    sources = {
        spec: RegistrySource(spec.reference, cache_dir=options.cache_dir, insecure=options.insecure)
        for spec in specs
        if spec.reference.startswith(OCI_SCHEME)
    }
    for spec, source in sources.items():
        if intervals.for_spec(spec) is not None and source.reference.digest:
            raise ConfigError(
                f"--index {spec.label()}: --refresh-interval follows a tag; this one is a digest (give "
                "each tag its own instead, --refresh-interval NAME=SECONDS, and none for this one)"
            )

    # Pulls wait on the network and opens partly in LanceDB: a few at once start several libraries sooner.
    with ThreadPoolExecutor(max_workers=min(_OPENING_AT_ONCE, len(specs))) as pool:
        opened = list(pool.map(open_one, specs))
    libraries.extend(library for library, _follow in opened)
    followers.extend(follow_it for _library, follow_it in opened if follow_it is not None)
    marked = [(s.name, str(s.version)) for s in specs if s.latest and s.name is not None]
    hub = Hub(libraries, signing_key, marked_latest=marked)
    server, states = create_hub_server(hub, max_tokens=max_tokens, feedback_log=feedback_log)
    refresh_health()
    stops.extend(start() for start in followers)

    def stop() -> None:
        for stop_one in stops:
            stop_one()

    return ReadyHub(hub, server, states, time.perf_counter() - started, health, stop)


def _library(spec: LibrarySpec, live: LiveIndex[ServedIndex], source: str, digest: str | None) -> Library:
    assert spec.name is not None
    version = spec.version or live.current.index.manifest.version
    return Library(spec.name, version, live, source, digest)


def _follower(
    source: RegistrySource,
    library: Library,
    pulled: PulledIndex,
    interval: float,
    refresh_health: Callable[..., None],
    announce: Callable[[str], None],
) -> Callable[[], Callable[[], None]]:
    def on_swap(new: PulledIndex) -> None:
        library.digest = new.digest
        refresh_health()
        announce(f"{library.label}: now serving {new.reference}")

    return lambda: follow(source, library.live, pulled, interval, on_swap)


def serve_hub(
    specs: Sequence[LibrarySpec],
    *,
    transport: Transport = "stdio",
    http: HttpOptions | None = None,
    announce: Callable[[str], None] = lambda _message: None,
    registry: RegistryOptions | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> None:
    """Blocking: serve every library of ``specs`` over ``transport`` (see :func:`serving.serve`)."""
    ready = open_hub(specs, registry, announce=announce, max_tokens=max_tokens, feedback_log=feedback_log)
    names = ", ".join(
        f"{lib.label} ({lib.live.current.index.manifest.chunk_count} chunks)" for lib in ready.hub.libraries
    )
    summary = f"{len(ready.hub.libraries)} indexes [{names}] ready in {ready.startup_seconds:.2f}s"
    try:
        if transport == "stdio":
            from docs_mcp.server.stdio import serve_stdio

            serve_stdio(ready.server, on_ready=lambda: announce(f"serving {summary} on stdio"))
            return
        from docs_mcp.server.http import serve_http

        http_options = replace(http or HttpOptions(), health=ready.health)
        serve_http(
            ready.server, http_options, on_listening=lambda url: announce(f"serving {summary} at {url}")
        )
    finally:
        ready.stop()
