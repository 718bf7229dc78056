"""Opening what ``serve --index`` names: every library (or the one index of a bare ``--index REF``)
read from its manifest at once and opened in the background (:mod:`.deferred`), and the MCP server
answering from them (:func:`docs_mcp.server.tools.app.create_hub_server`).

Each library is opened like any other: a folder is watched and reopened when rebuilt
(:mod:`.live`); an ``oci://`` reference is pulled through the cache and, with a refresh interval, its
tag is polled by its own thread, so one registry failing to answer leaves every other index (and its
own current one) serving. The cache is shared: each library holds a lease on the indexes it serves
(:mod:`docs_mcp.artifact.index_lease`), and a refresh removes only unpacked indexes nobody holds.
After a swap, the next ``initialize`` says the new index's instructions.

For hosts with their own transport: :func:`open_server` (one folder, opened and warmed) and
:func:`open_deferred` (one folder, opening in the background).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docs_mcp.errors import ConfigError
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.hub.deferred import DeferredIndex
from docs_mcp.server.hub.libraries import UNNAMED, Hub, Library, ServedIndex, served_index
from docs_mcp.server.hub.live import LiveIndex
from docs_mcp.server.hub.specs import LibrarySpec, RefreshIntervals, check_facet_names
from docs_mcp.server.hub.union import UNION_MIN_LIBRARIES, UNIONS_DIR, UnionIndex, union_mode
from docs_mcp.server.hub.warm import open_warm
from docs_mcp.server.startup.health import index_health, overall_status
from docs_mcp.server.startup.options import OCI_SCHEME, RegistryOptions
from docs_mcp.server.tools.app import ServerStates, create_hub_server
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.tools.cursor import cursor_key
from docs_mcp.server.tools.hub_union import union_for
from docs_mcp.server.tools.listing import manifest_schemas
from docs_mcp.store.cache_home import default_cache_dir
from docs_mcp.store.index_manifest import IndexManifest, read_manifest

if TYPE_CHECKING:
    from mcp.server.lowlevel import Server

    from docs_mcp.search.reader import IndexReader  # an opened DocsIndex
    from docs_mcp.server.hub.registry_source import PulledIndex, RegistrySource

__all__ = ["DeferredServer", "ReadyHub", "ReadyServer", "open_deferred", "open_hub", "open_server"]

_OPENING_AT_ONCE = 4
OnSwap = Callable[[ServedIndex, Path], None]


@dataclass
class ReadyHub:
    """Every library's manifest read (and, unless opened without waiting, every library open and
    warmed); ``summary`` says what is served, ``health()`` is what ``/healthz`` answers; ``stop``
    ends the refresh threads."""

    hub: Hub
    server: Any
    states: ServerStates
    startup_seconds: float
    summary: str
    health: Callable[[], dict[str, Any]]
    stop: Callable[[], None]


@dataclass(frozen=True)
class _Opener:
    """How each library opens: warmed in this process (:func:`open_warm`), its load yielding to a
    stdio session's opening exchange for at most ``opening_wait`` seconds (:mod:`.deferred`); its
    schemas are those of its manifest (what was published while it loaded)."""

    opening_wait: float
    max_tokens: int
    on_loaded: Callable[[], None]
    on_failure: Callable[[], None]
    at_once: threading.Semaphore

    def library(
        self,
        spec: LibrarySpec,
        path: Path,
        *,
        watch: bool,
        on_swap: OnSwap,
        pulled: PulledIndex | None = None,
    ) -> Library:
        """The library ``spec`` names, its manifest read at ``path``, its index not yet loading."""
        label = spec.label() if spec.name is not None else ""
        manifest = read_manifest(path)
        if label:  # at start, before anything opens; a hub's own arguments would shadow the facet
            check_facet_names(label, manifest_schemas(manifest).facets)

        def open_state(where: Path) -> ServedIndex:
            index = open_warm(where)
            schemas = manifest_schemas(index.manifest, self.max_tokens, index.config.facets)
            served = served_index(index, self.max_tokens, schemas)
            if label:
                check_facet_names(label, served.schemas.facets)  # on each swap (then refused)
            return served

        def open_live() -> LiveIndex[ServedIndex]:
            with self.at_once:
                return LiveIndex.open(path, open_state, watch=watch, on_swap=on_swap)

        index = DeferredIndex(
            manifest,
            open_live,
            where=path,
            label=f"--index {label}" if label else "",
            on_loaded=self.on_loaded,
            on_failure=self.on_failure,
            opening_wait=self.opening_wait,
        )
        version = None if spec.name is None else spec.version or manifest.version
        digest = pulled.digest if pulled is not None else None
        library = Library(spec.name or UNNAMED, version, index, spec.reference, digest)
        library.pulled = str(pulled.reference) if pulled is not None else None
        return library


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
    opening_wait: float = 0.0,
) -> ReadyHub:
    """Pull what ``specs`` reference (several named libraries, or one bare ``REF``), read every
    manifest, build the hub and its MCP server (answers within ``max_tokens`` by default;
    ``docs_feedback`` appending to ``feedback_log`` when given) and open the libraries in the
    background, returning once they are open (``wait``) or at once. ``on_loaded``/``on_failure``
    run as each library's load ends (:class:`DeferredIndex`). ``opening_wait``: how long the loads
    yield to the opening exchange (a stdio session's ``tools/list``: see :mod:`.deferred`).

    Raises ``ConfigError`` (a bad spec or interval, a library given twice), ``IndexUnavailable``,
    ``IndexCompatibilityError`` or ``RegistryError`` naming the library at fault; without ``wait``,
    a library that fails to open later is its calls' error and ``/healthz``'s.
    """
    options = registry or RegistryOptions()
    unnamed = [spec.name for spec in specs] == [None]
    intervals = RefreshIntervals(options.refresh_interval, options.library_refresh)
    intervals.check(specs)
    if intervals and not any(s.reference.startswith(OCI_SCHEME) for s in specs):
        raise ConfigError(
            "--refresh-interval follows a registry tag; give --index oci://REF"
            if unnamed
            else "--refresh-interval follows registry tags; no --index is oci://REF"
        )
    # Every reference is checked before anything is pulled: a digest cannot be followed. The registry
    # client is imported only for an oci:// reference: a folder's start never pays for it.
    if any(spec.reference.startswith(OCI_SCHEME) for spec in specs):
        from docs_mcp.server.hub.registry_source import RegistrySource
    sources = {
        spec: RegistrySource(spec.reference, cache_dir=options.cache_dir, insecure=options.insecure)
        for spec in specs
        if spec.reference.startswith(OCI_SCHEME)
    }
    for spec, source in sources.items():
        if intervals.for_spec(spec) is not None and source.reference.digest:
            raise ConfigError(
                "--refresh-interval follows a tag; this reference is pinned to a digest"
                if unnamed
                else f"--index {spec.label()}: --refresh-interval follows a tag; this one is a digest (give "
                "each tag its own instead, --refresh-interval NAME=SECONDS, and none for this one)"
            )
    started = time.perf_counter()
    # Each open imports and reads LanceDB files: a few at once start several libraries sooner.
    hubs: list[Hub] = []

    def loaded() -> None:
        on_loaded()
        if hubs:  # once every library is open, the union of them starts being made
            _prepare_union(hubs[0])

    opener = _Opener(opening_wait, max_tokens, loaded, on_failure, threading.Semaphore(_OPENING_AT_ONCE))
    states: list[ServerStates] = []

    def start_one(spec: LibrarySpec) -> tuple[Library, Callable[[], Callable[[], None]] | None]:
        pulled = sources[spec].start() if spec in sources else None
        path = pulled.path if pulled is not None else Path(spec.reference)
        say = announce if unnamed and pulled is None else None
        library = opener.library(
            spec, path, watch=pulled is None, on_swap=_swapped(states, say, hubs), pulled=pulled
        )
        interval = intervals.for_spec(spec) if pulled is not None else None
        library.refresh_interval = interval
        if pulled is None or interval is None:
            return library, None
        return library, _follower(sources[spec], library, pulled, interval, announce)

    # Pulls wait on the network: a few at once start several libraries sooner.
    with ThreadPoolExecutor(max_workers=min(_OPENING_AT_ONCE, len(specs))) as pool:
        opened = list(pool.map(start_one, specs))
    libraries = [library for library, _follow in opened]
    marked = [(s.name, str(s.version)) for s in specs if s.latest and s.name is not None]
    signing_key = key if key is not None else cursor_key()
    hub = Hub(libraries, signing_key, marked_latest=marked, max_tokens=max_tokens)
    if len({s.name for s in specs}) >= UNION_MIN_LIBRARIES and union_mode() != "off":
        hub.union = UnionIndex((options.cache_dir or default_cache_dir()) / UNIONS_DIR, open_warm)
    hubs.append(hub)
    server, made = create_hub_server(hub, max_tokens=max_tokens, feedback_log=feedback_log)
    states.append(made)
    for library in libraries:
        library.index.start()
    stops = [start() for _library, start in opened if start is not None]

    def stop() -> None:
        for stop_one in stops:
            stop_one()

    if wait:
        try:
            for library in libraries:
                library.index.wait()
        except BaseException:
            stop()
            raise
    seconds = time.perf_counter() - started
    return ReadyHub(hub, server, made, seconds, _summary(hub), lambda: _health(hub), stop)


def _prepare_union(hub: Hub) -> None:
    """Start making the union of the hub's libraries (``hub.union``) when they are all open."""
    if hub.union is not None:
        union_for(hub.view(), SearchRequest(query="union"), exact_only=False)


def _swapped(
    states: list[ServerStates], announce: Callable[[str], None] | None, hubs: Sequence[Hub] = ()
) -> OnSwap:
    """What a library's swap does: the server's state (and its next ``initialize``'s instructions)
    is made anew, and the union of the new indexes started; a rebuilt folder served alone is announced."""

    def swapped(served: ServedIndex, path: Path) -> None:
        for made in states:
            made.acquire()
        for hub in hubs:
            _prepare_union(hub)
        if announce is not None:
            announce(f"{path} was rebuilt: now serving index {served.index.identity}")

    return swapped


def _summary(hub: Hub) -> str:
    """What the ``serving ... ready`` line says is served."""
    libraries = hub.libraries
    if hub.unnamed:
        manifest = libraries[0].manifest
        return f"index {manifest.identity} ({manifest.chunk_count} chunks, {manifest.file_count} files)"
    names = ", ".join(f"{lib.label} ({lib.manifest.chunk_count} chunks)" for lib in libraries)
    return f"{len(libraries)} indexes [{names}]"


def _health(hub: Hub) -> dict[str, Any]:
    """What ``/healthz`` answers: one index's status (and the artifact served), or every library's."""
    libraries = hub.libraries
    if hub.unnamed:
        library = libraries[0]
        artifact = {"reference": library.pulled, "digest": library.digest}
        return {**index_health(library.index), **({"artifact": artifact} if library.pulled else {})}
    failed = [str(lib.index.error) for lib in libraries if lib.index.error is not None]
    report: dict[str, Any] = {
        "status": overall_status(lib.index for lib in libraries),
        "indexes": hub.health(),
    }
    if hub.union is not None:
        report["union"] = hub.union.status
    return {**report, "error": failed[0]} if failed else report


def _follower(
    source: RegistrySource,
    library: Library,
    pulled: PulledIndex,
    interval: float,
    announce: Callable[[str], None],
) -> Callable[[], Callable[[], None]]:
    from docs_mcp.server.hub.registry_source import follow

    def on_swap(new: PulledIndex) -> None:
        library.digest, library.pulled = new.digest, str(new.reference)
        announce(
            f"{library.label}: now serving {new.reference}"
            if library.name
            else f"now serving {new.reference}"
        )

    return lambda: follow(source, library.index, pulled, interval, on_swap)


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
    on_swap: OnSwap | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
    on_loaded: Callable[[], None] = lambda: None,
    on_failure: Callable[[], None] = lambda: None,
    opening_wait: float = 0.0,
) -> DeferredServer:
    """The index folder at ``index_path`` opened in a background thread: the server answers
    ``initialize`` and ``tools/list`` from the manifest at once, and tool calls once it is open.
    ``watch``: reopen the folder when a build replaces it (:mod:`.live`); ``on_swap`` runs after each
    swap.

    Raises (before anything loads) ``IndexUnavailable`` for a missing or corrupt manifest and
    ``IndexCompatibilityError`` for another format; a table that fails to open later is each call's
    tool error (:meth:`DeferredIndex.settle` returns it; ``on_failure`` runs then);
    ``on_loaded`` runs once it is open. ``opening_wait``: how long the load yields to the opening
    exchange (a stdio session's ``tools/list``: see :mod:`.deferred`).
    """
    path = Path(index_path)
    states: list[ServerStates] = []
    notify = _swapped(states, None)

    def swapped(served: ServedIndex, where: Path) -> None:
        notify(served, where)
        if on_swap is not None:
            on_swap(served, where)

    opener = _Opener(opening_wait, max_tokens, on_loaded, on_failure, threading.Semaphore(1))
    library = opener.library(LibrarySpec(None, str(path)), path, watch=watch, on_swap=swapped)
    hub = Hub([library], key if key is not None else cursor_key(), max_tokens=max_tokens)
    server, made = create_hub_server(hub, max_tokens=max_tokens, feedback_log=feedback_log)
    states.append(made)
    library.index.start()
    return DeferredServer(library.index.manifest, server, library.index)


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
    on_swap: OnSwap | None = None,
    max_tokens: int = MAX_TOKENS_DEFAULT,
    feedback_log: Path | None = None,
) -> ReadyServer:
    """Open the index at ``index_path`` (an output folder of ``docs-mcp build``), warm it, build the
    server: :func:`open_deferred`, waited for.

    Raises:
        IndexUnavailable: the index is missing or unreadable.
        IndexCompatibilityError: the index was built by an incompatible version or provider.
    """
    started = time.perf_counter()
    opened = open_deferred(
        index_path, key=key, watch=watch, on_swap=on_swap, max_tokens=max_tokens, feedback_log=feedback_log
    )
    live = opened.index.wait()
    return ReadyServer(live.current.index, opened.server, time.perf_counter() - started, live)
