"""``serve`` with several ``--index NAME=REF``: each library opened and followed on its own, all served.

Each library is opened like a single index: a folder is watched and reopened when rebuilt; an
``oci://`` reference is pulled through the cache and, with a refresh interval, its tag is polled by its
own thread, so one registry failing to answer leaves every other index (and its own current one)
serving. The cache is shared: each library holds a lease on the indexes it serves
(:mod:`docs_mcp.artifact.index_lease`, a lock per open file, so libraries of one process hold them
apart like processes do), and a refresh removes only unpacked indexes nobody holds.

At start every manifest is read (after its pull, for ``oci://``) and checked; the libraries then open
in the background (:mod:`docs_mcp.server.deferred`): the listing and instructions come from the
manifests, and a call waits only for the libraries it reads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError
from docs_mcp.server.app import ServedIndex, served_index
from docs_mcp.server.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.cursor import cursor_key
from docs_mcp.server.deferred import DeferredIndex
from docs_mcp.server.health import overall_status
from docs_mcp.server.hub import Hub, Library
from docs_mcp.server.hub_app import HubStates, create_hub_server
from docs_mcp.server.library import LibrarySpec, RefreshIntervals, check_facet_names
from docs_mcp.server.live import LiveIndex
from docs_mcp.server.options import OCI_SCHEME, HttpOptions, RegistryOptions, Transport
from docs_mcp.server.registry_source import PulledIndex, RegistrySource, follow
from docs_mcp.server.tool_schema import searchable_facets
from docs_mcp.server.warm import open_warm
from docs_mcp.store.index_manifest import read_manifest

__all__ = ["ReadyHub", "open_hub", "serve_hub"]

_OPENING_AT_ONCE = 4


@dataclass
class ReadyHub:
    """Every library's manifest read (and, unless opened without waiting, every library open and
    warmed); ``health()`` is what ``/healthz`` answers; ``stop`` ends the refresh threads."""

    hub: Hub
    server: Any
    states: HubStates
    startup_seconds: float
    health: Callable[[], dict[str, Any]]
    stop: Callable[[], None]


def open_hub(
    specs: Sequence[LibrarySpec],
    registry: RegistryOptions | None = None,
    *,
    key: bytes | None = None,
    announce: Callable[[str], None] = lambda _message: None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
    wait: bool = True,
    on_loaded: Callable[[], None] = lambda: None,
    on_failure: Callable[[], None] = lambda: None,
) -> ReadyHub:
    """Pull what ``specs`` (named) reference, read every manifest, build the hub and its MCP server
    (answers within ``max_tokens`` by default; ``docs_feedback`` appending to ``feedback_log`` when
    given) and open the libraries in the background, returning once they are open (``wait``) or at
    once. ``on_loaded``/``on_failure`` run as each library's load ends (:class:`DeferredIndex`).

    Raises ``ConfigError`` (a bad spec or interval, a library given twice), ``IndexUnavailable``,
    ``IndexCompatibilityError`` or ``RegistryError`` naming the library at fault; without ``wait``,
    a library that fails to open later is its calls' error and ``/healthz``'s.
    """
    options = registry or RegistryOptions()
    intervals = RefreshIntervals(options.refresh_interval, options.library_refresh)
    if intervals and not any(s.reference.startswith(OCI_SCHEME) for s in specs):
        raise ConfigError("--refresh-interval follows registry tags; no --index is oci://REF")
    intervals.check(specs)
    started = time.perf_counter()
    signing_key = key if key is not None else cursor_key()
    # Each open imports and reads LanceDB files: a few at once start several libraries sooner.
    opening = threading.Semaphore(_OPENING_AT_ONCE)

    def opener_of(label: str) -> Callable[[Path], ServedIndex]:
        def opener(path: Path) -> ServedIndex:
            served = served_index(open_warm(path), signing_key)
            check_facet_names(label, served.tools.facets)  # on each swap (then refused)
            return served

        return opener

    def start_one(spec: LibrarySpec) -> tuple[Library, Callable[[], Callable[[], None]] | None]:
        assert spec.name is not None
        label = spec.label()
        pulled = sources[spec].start() if spec in sources else None
        path = pulled.path if pulled is not None else Path(spec.reference)
        manifest = read_manifest(path)
        check_facet_names(label, searchable_facets(manifest.facets))  # at start, before anything opens

        def open_live() -> LiveIndex[ServedIndex]:
            with opening:
                return LiveIndex.open(path, opener_of(label), watch=pulled is None)

        index = DeferredIndex(
            manifest,
            open_live,
            where=path,
            label=f"--index {label}",
            on_loaded=on_loaded,
            on_failure=on_failure,
        )
        library = Library(
            spec.name,
            spec.version or manifest.version,
            index,
            spec.reference,
            pulled.digest if pulled else None,
        )
        interval = intervals.for_spec(spec) if pulled is not None else None
        library.refresh_interval = interval
        if pulled is None or interval is None:
            return library, None
        return library, _follower(sources[spec], library, pulled, interval, announce)

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

    # Pulls wait on the network: a few at once start several libraries sooner.
    with ThreadPoolExecutor(max_workers=min(_OPENING_AT_ONCE, len(specs))) as pool:
        opened = list(pool.map(start_one, specs))
    libraries = [library for library, _follow in opened]
    marked = [(s.name, str(s.version)) for s in specs if s.latest and s.name is not None]
    hub = Hub(libraries, signing_key, marked_latest=marked)
    server, states = create_hub_server(hub, max_tokens=max_tokens, feedback_log=feedback_log)
    for library in libraries:
        library.index.start()
    stops = [start() for _library, start in opened if start is not None]

    def stop() -> None:
        for stop_one in stops:
            stop_one()

    def health() -> dict[str, Any]:
        failed = [str(lib.index.error) for lib in libraries if lib.index.error is not None]
        report = {"status": overall_status(lib.index for lib in libraries), "indexes": hub.health()}
        return {**report, "error": failed[0]} if failed else report

    if wait:
        try:
            for library in libraries:
                library.index.wait()
        except BaseException:
            stop()
            raise
    return ReadyHub(hub, server, states, time.perf_counter() - started, health, stop)


def _follower(
    source: RegistrySource,
    library: Library,
    pulled: PulledIndex,
    interval: float,
    announce: Callable[[str], None],
) -> Callable[[], Callable[[], None]]:
    def on_swap(new: PulledIndex) -> None:
        library.digest = new.digest
        announce(f"{library.label}: now serving {new.reference}")

    return lambda: follow(source, library.index, pulled, interval, on_swap)


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
    """Blocking: serve every library of ``specs`` over ``transport`` (see :func:`serving.serve`),
    answering from the manifests while the libraries open (:mod:`docs_mcp.server.launch`)."""
    from docs_mcp.server.launch import Launch

    launch = Launch(transport, announce)
    ready = open_hub(
        specs,
        registry,
        announce=announce,
        max_tokens=max_tokens,
        feedback_log=feedback_log,
        wait=False,
        on_loaded=launch.on_loaded,
        on_failure=launch.on_failure,
    )
    libraries = ready.hub.libraries
    names = ", ".join(f"{lib.label} ({lib.manifest.chunk_count} chunks)" for lib in libraries)
    try:
        launch.serve(
            ready.server,
            [library.index for library in libraries],
            f"{len(libraries)} indexes [{names}]",
            health=ready.health,
            http=http,
        )
    finally:
        ready.stop()
