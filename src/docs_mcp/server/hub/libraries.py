"""The set of indexes one server serves: libraries, their versions, and what the tools derive from them.

Each served index is its own :class:`~docs_mcp.server.hub.live.LiveIndex` (a folder reopened when rebuilt,
or an ``oci://`` tag followed on its own), so one index swapping, or failing to refresh, never touches
the others. :meth:`Hub.view` is what one request works with: every index's current state, and the
schemas, listing and instructions made from them, rebuilt only when some index's identity moved.

One bare ``--index REF`` is a hub of one library without a name (:data:`UNNAMED`): its view is
``unnamed``, and the tools, resources and prompts render it as a single index (no ``library``
argument, ``docs://{chunk_id}``).

Each library opens in the background (a :class:`~docs_mcp.server.hub.deferred.DeferredIndex`): until it
is open, a view holds its manifest only, which is all the listing and instructions read
(:mod:`.hub_schema`); a request that reads the library's index (:attr:`Served.state`) waits for
that library's load, and no other.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from docs_mcp.errors import ConfigError, QueryError
from docs_mcp.server.hub.deferred import DeferredIndex
from docs_mcp.server.hub.live import LiveIndex
from docs_mcp.server.hub.specs import latest_version, version_key
from docs_mcp.server.hub.union import UnionIndex
from docs_mcp.server.tools.budget import MAX_TOKENS_DEFAULT
from docs_mcp.server.tools.cursor import CursorCodec
from docs_mcp.server.tools.listing import manifest_schemas
from docs_mcp.server.tools.tool_schema import SchemaExamples, ToolSchemas, manifest_examples, tool_schemas
from docs_mcp.store.index_manifest import IndexManifest

if TYPE_CHECKING:
    from docs_mcp.search.reader import IndexReader  # an opened DocsIndex

__all__ = ["UNNAMED", "Hub", "HubView", "Library", "LibraryNotServed", "ServedIndex", "served_index"]

UNNAMED = ""  # the name of the one library a bare --index REF serves


@dataclass(frozen=True)
class ServedIndex:
    """One opened index and the schemas its tools publish; swapped whole (see ``live``)."""

    index: IndexReader
    schemas: ToolSchemas


def served_index(
    index: IndexReader, max_tokens: int = MAX_TOKENS_DEFAULT, schemas: ToolSchemas | None = None
) -> ServedIndex:
    """``index`` served with ``schemas`` (those published before it opened, from its manifest), by
    default made here for answers of at most ``max_tokens``: the manifest's examples, else a
    section of the index."""
    if schemas is None:
        examples = manifest_examples(index.manifest.examples)
        if not examples.query:
            heading, chunk_id = index.example_section()
            examples = SchemaExamples(query=heading, chunk_id=chunk_id)
        schemas = tool_schemas(index.facets, index.config.facets, max_tokens, examples)
    return ServedIndex(index, schemas)


class LibraryNotServed(QueryError):
    """A ``library`` or ``version`` names nothing this server serves; the message lists what it does."""


@dataclass
class Library:
    """One served index: library ``name``, its ``version`` (None: unversioned), the index it holds now
    (``index``: opening in the background, its manifest read at start).

    ``source`` is what was given (a folder or ``oci://`` reference); ``digest`` the artifact digest
    being served (None for a folder); ``refresh_interval`` how often its tag is polled (None: never);
    all shown by ``/healthz``.
    """

    name: str
    version: str | None
    index: DeferredIndex[ServedIndex]
    source: str
    digest: str | None = None
    refresh_interval: float | None = None
    pulled: str | None = None  # the reference pulled (oci://), as /healthz shows one index's

    @property
    def label(self) -> str:
        return f"{self.name}@{self.version}" if self.version else self.name

    @property
    def live(self) -> LiveIndex[ServedIndex]:
        """The opened index, waiting for its load (raises the load's error)."""
        return self.index.wait()

    @property
    def manifest(self) -> IndexManifest:
        """The manifest of the index served now (the one read at start while it loads)."""
        loaded = self.index.loaded
        return loaded.current.index.manifest if loaded is not None else self.index.manifest

    def health(self) -> dict[str, Any]:
        manifest = self.manifest
        row = {
            "library": self.name,
            "version": self.version,
            "status": self.index.status,
            "source": self.source,
            "digest": self.digest,
            "refresh_interval": self.refresh_interval,
            "index": manifest.identity,
            "index_version": manifest.docs_mcp_version,
            "chunks": manifest.chunk_count,
        }
        if self.index.error is not None:
            row["error"] = str(self.index.error)
        return row


@dataclass(frozen=True)
class Served:
    """One library version as a request sees it: the library, the state it acquired (None while the
    library loads), and that state's manifest and schemas (the manifest's while it loads)."""

    library: Library
    loaded: ServedIndex | None
    manifest: IndexManifest
    schemas: ToolSchemas

    @classmethod
    def of(cls, library: Library, loaded: ServedIndex | None, max_tokens: int) -> Served:
        if loaded is not None:
            return cls(library, loaded, loaded.index.manifest, loaded.schemas)
        manifest = library.index.manifest
        return cls(library, None, manifest, manifest_schemas(manifest, max_tokens))

    @property
    def facets(self) -> dict[str, list[str]]:
        """The facets its ``search_docs`` filters on."""
        return self.schemas.facets

    @property
    def name(self) -> str:
        return self.library.name

    @property
    def version(self) -> str | None:
        return self.library.version

    @property
    def identity(self) -> str:
        return self.manifest.identity

    @property
    def state(self) -> ServedIndex:
        """The library's opened state: the one acquired, or (while it loaded) the one its load opens,
        waited for. Raises the load's error."""
        return self.loaded if self.loaded is not None else self.library.live.acquire()


@dataclass(frozen=True)
class HubView:
    """Every served index as of one request, plus the cursor codecs bound to their identities."""

    served: dict[tuple[str, str | None], Served]
    latest: dict[str, str | None]  # library -> the version used when none is given
    key: bytes = field(repr=False)
    # The union of the default libraries' indexes merged searches may ask (``hub.union``); None: none.
    union: UnionIndex | None = field(default=None, repr=False, compare=False)

    @property
    def unnamed(self) -> bool:
        """One library given without a name (a bare ``--index REF``): served as a single index."""
        return list(self.served) == [(UNNAMED, None)]

    @property
    def sole(self) -> Served:
        """The first library (the only one of an unnamed view)."""
        return self.defaults()[0]

    @property
    def names(self) -> list[str]:
        return sorted(self.latest)

    def versions(self, name: str) -> list[str]:
        found = [v for (n, v) in self.served if n == name and v is not None]
        return sorted(found, key=version_key)

    def defaults(self) -> list[Served]:
        """The latest version of each library, in name order: what a search without ``library`` covers."""
        return [self.served[(name, self.latest[name])] for name in self.names]

    def everything(self) -> list[Served]:
        """Every served library version, in name then version order."""
        return [
            self.served[key] for key in sorted(self.served, key=lambda k: (k[0], version_key(k[1] or "")))
        ]

    def resolve(self, name: str, version: str | None) -> Served:
        """The library version a call names (``version`` None: its latest).

        Raises ``LibraryNotServed`` listing the served libraries, or the served versions of ``name``.
        """
        if name not in self.latest:
            raise LibraryNotServed(
                f"library {name!r} is not served here; libraries: {', '.join(self.names)}."
            )
        if version is None:
            return self.served[(name, self.latest[name])]
        if (name, version) not in self.served:
            served = self.versions(name)
            listed = (
                f"served versions of {name}: {', '.join(served)} (latest {self.latest[name]})"
                if served
                else f"{name} is served without versions: omit `version`"
            )
            raise LibraryNotServed(f"version {version!r} of {name!r} is not served; {listed}.")
        return self.served[(name, version)]

    def codec(self, served: Served | None) -> CursorCodec:
        """Cursors of one library version (bound to its index), or of a cross-library search (bound
        to every default index: any of them swapping makes such a cursor stale). An unnamed view's
        cursors are bound to its index alone."""
        if self.unnamed:
            return CursorCodec(self.key, self.sole.identity)
        if served is not None:
            return CursorCodec(self.key, f"{served.name}@{served.version or ''}={served.identity}")
        parts = sorted(f"{s.name}@{s.version or ''}={s.identity}" for s in self.defaults())
        return CursorCodec(self.key, "|".join(parts))

    @property
    def signature(self) -> str:
        """Changes whenever any served index was swapped."""
        parts = sorted(f"{n}@{v or ''}={s.identity}" for (n, v), s in self.served.items())
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


class Hub:
    """The served libraries (one named :data:`UNNAMED`: a single index). Raises ``ConfigError`` when
    made with none, or with one name served twice without distinct versions."""

    def __init__(
        self,
        libraries: Sequence[Library],
        key: bytes,
        *,
        marked_latest: Sequence[tuple[str, str]] = (),
        max_tokens: int = MAX_TOKENS_DEFAULT,
    ) -> None:
        """``max_tokens``: the default answer budget the schemas of a library still loading publish."""
        if not libraries:
            raise ConfigError("no index to serve")
        self.libraries = list(libraries)
        self._key = key
        self._max_tokens = max_tokens
        seen: dict[tuple[str, str | None], Library] = {}
        for library in self.libraries:
            if (library.name, library.version) in seen:
                raise ConfigError(
                    f"--index {library.label} is given twice; give each library version once "
                    "(NAME@VERSION=REF, or build each index with --version)"
                )
            seen[(library.name, library.version)] = library
        self.latest: dict[str, str | None] = {}
        for name in sorted({library.name for library in self.libraries}):
            versions = [lib.version for lib in self.libraries if lib.name == name]
            if len(versions) > 1 and None in versions:
                raise ConfigError(
                    f"library {name!r} is given more than once and not every index of it has a version: "
                    f"write {name}@VERSION=REF for each (or build each with --version)"
                )
            marked = [v for n, v in marked_latest if n == name and (n, v) in seen]
            self.latest[name] = (
                None if versions == [None] else latest_version([v for v in versions if v], marked)
            )
        self._lock = threading.Lock()
        # Set by the server opening it (``opening.open_hub``) when it serves several libraries.
        self.union: UnionIndex | None = None
        self._view: HubView | None = None
        self._view_states: tuple[int, ...] = ()

    @property
    def unnamed(self) -> bool:
        """One library given without a name: a single index (see :attr:`HubView.unnamed`)."""
        return [(lib.name, lib.version) for lib in self.libraries] == [(UNNAMED, None)]

    def view(self) -> HubView:
        """Every library's state for one request (reopening a rebuilt folder first); never waits for
        a library still loading (its manifest stands in for it)."""
        states = [_acquired(library) for library in self.libraries]
        ids = tuple(id(state) for state in states)
        view = self._view
        if view is not None and ids == self._view_states:
            return view
        served = {
            (lib.name, lib.version): Served.of(lib, state, self._max_tokens)
            for lib, state in zip(self.libraries, states, strict=True)
        }
        view = HubView(served, dict(self.latest), self._key, self.union)
        with self._lock:
            self._view, self._view_states = view, ids
        return view

    def health(self) -> list[dict[str, Any]]:
        """Every served index for ``/healthz``: library, version, source, digest, index identity."""
        return [library.health() for library in self.libraries]

    def wait_open(self, name: object = None) -> None:
        """Block until the libraries a request may read are open (or their loads ended): every served
        version of library ``name``, or, without one (or for a name not served), every library.
        Raises nothing: a failed load is the request's own error when it reads the library."""
        libraries = [library for library in self.libraries if library.name == name] or self.libraries
        for library in libraries:
            if library.index.loaded is None:
                library.index.settle()


def _acquired(library: Library) -> ServedIndex | None:
    """The library's state a request should use, or None while it loads (or after its load failed)."""
    loaded = library.index.loaded
    return loaded.acquire() if loaded is not None else None
