"""An index opened in a background thread while the server already answers ``initialize``.

An MCP client spawns a stdio server at the start of every session and waits for its ``initialize``
answer (some give up on slow ones). Everything that answer and ``tools/list`` need (facet values,
descriptions, counts, instructions, the schemas' examples) is in the index manifest, a small JSON
file, so the server publishes them from the manifest alone, while LanceDB,
pyarrow and the embedder are imported and the index is opened and warmed in a thread started first.
The first ``tools/call`` (or resource read) waits for that load, at most ``LOAD_TIMEOUT`` seconds; a
load that failed is that call's tool error, in one line.

The load can also yield to a stdio session's opening exchange: both threads share one interpreter
lock, and the main thread answering ``initialize`` and ``tools/list`` while the load imports waited
for the lock at every step. With ``opening_wait`` the load starts once ``tools/list`` has been
answered (:meth:`DeferredIndex.opening_answered`), a call or the end of input needs the index, or at
the latest ``opening_wait`` seconds after :meth:`DeferredIndex.start`.

The listing made from the manifest is the one the opened index lists (the same schema functions over
the same facets and examples: tested), so nothing a client saw changes when the load completes.

One mechanism for every way of serving: a single folder or ``oci://`` index (pulled first: the
manifest comes with the artifact) over stdio or HTTP, and each library of a server with several
(each its own :class:`DeferredIndex`, so a call waits for the library it reads only). Over HTTP,
``/healthz`` says ``loading`` (503) until the index is open (:mod:`docs_mcp.server.startup.health`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Generic, Literal, TypeVar

from docs_mcp.errors import DocsMcpError, IndexUnavailable
from docs_mcp.server.hub.live import LiveIndex
from docs_mcp.store.index_manifest import IndexManifest

__all__ = ["LOAD_GATE_ENV", "LOAD_TIMEOUT", "OPENING_WAIT", "DeferredIndex", "LoadStatus"]

logger = logging.getLogger(__name__)

State = TypeVar("State")
LoadStatus = Literal["loading", "ok", "failed"]
# A tool call waits this long for the index to load before it is answered with an error.
LOAD_TIMEOUT = 120.0
# Test hook: the load waits until this file exists, so a test can prove what is answered before it.
LOAD_GATE_ENV = "DOCS_MCP_TEST_LOAD_GATE"
_GATE_POLL = 0.02
# The longest a stdio load yields to a client that has not listed the tools yet (module doc).
OPENING_WAIT = 0.5


class DeferredIndex(Generic[State]):
    """A :class:`LiveIndex` being opened by ``open_live`` in a background thread (see the module);
    ``manifest`` is the index's, read before.

    ``on_loaded()`` runs once, in the loading thread, when the index is open; ``on_failure()``
    when the load fails (:attr:`error` then says why). ``label`` (a hub's ``--index NAME``) starts
    a failed load's message, so the exit error and ``/healthz`` say which library it was.
    ``opening_wait``: how long the load yields to the opening exchange (module doc); 0 starts it at
    once.
    """

    def __init__(
        self,
        manifest: IndexManifest,
        open_live: Callable[[], LiveIndex[State]],
        *,
        where: Path | str,
        label: str = "",
        timeout: float = LOAD_TIMEOUT,
        on_loaded: Callable[[], None] = lambda: None,
        on_failure: Callable[[], None] = lambda: None,
        opening_wait: float = 0.0,
    ) -> None:
        self.manifest = manifest
        self._opening_wait = opening_wait
        self._opened_session = threading.Event()
        self._on_loaded = on_loaded
        self._open_live = open_live
        self._where = str(where)
        self._label = label
        self._timeout = timeout
        self._on_failure = on_failure
        self._done = threading.Event()
        self._live: LiveIndex[State] | None = None
        self._error: DocsMcpError | None = None
        self.load_seconds: float | None = None
        self._thread = threading.Thread(target=self._load, name="docs-mcp-index-load", daemon=True)

    @classmethod
    def opened(cls, manifest: IndexManifest, live: LiveIndex[State]) -> DeferredIndex[State]:
        """An index that is already open (in-process servers)."""
        deferred = cls(manifest, lambda: live, where="")
        deferred._live = live
        deferred.load_seconds = 0.0
        deferred._done.set()
        return deferred

    def start(self) -> DeferredIndex[State]:
        """Start loading; returns self."""
        self._thread.start()
        return self

    def _load(self) -> None:
        started = time.perf_counter()
        try:
            try:
                _wait_for_gate()
                self._opened_session.wait(self._opening_wait)
                self._live = self._open_live()
            except DocsMcpError as error:
                self._error = error
            except Exception as error:  # a load must never die silently: the calls report it
                logger.exception("opening the index at %s failed", self._where)
                self._error = IndexUnavailable(
                    f"the index at {self._where!r} could not be opened ({type(error).__name__}: {error}); "
                    "rebuild it: docs-mcp build --docs-dir DOCS --out OUT"
                )
            if self._error is not None and self._label:
                self._error = IndexUnavailable(f"{self._label}: {self._error}")
            self.load_seconds = time.perf_counter() - started
            # The callbacks run before the load counts as ended: whoever waits in ``settle`` (the
            # stdio server at end of input) exits only after "loaded" was said.
            if self._error is not None:
                self._on_failure()
            else:
                self._on_loaded()
        finally:
            if self.load_seconds is None:
                self.load_seconds = time.perf_counter() - started
            self._done.set()

    def opening_answered(self) -> None:
        """The client has been listed the tools: the load need not yield any longer."""
        self._opened_session.set()

    def settle(self) -> DocsMcpError | None:
        """Block until the load has ended (at most the timeout): its error, or None when it opened
        (or is still loading after the timeout)."""
        self._opened_session.set()
        self._done.wait(self._timeout)
        return self._error

    @property
    def status(self) -> LoadStatus:
        """``loading`` until the load has ended, then ``ok`` or ``failed``."""
        if not self._done.is_set():
            return "loading"
        return "ok" if self._error is None else "failed"

    @property
    def error(self) -> DocsMcpError | None:
        """Why the load failed (None while loading and once open)."""
        return self._error if self._done.is_set() else None

    @property
    def loaded(self) -> LiveIndex[State] | None:
        """The opened index, or None while it loads or when its load failed."""
        return self._live

    def wait(self) -> LiveIndex[State]:
        """Block until the index is open. Raises the load's ``DocsMcpError`` when it failed, and
        ``IndexUnavailable`` when it takes longer than the timeout."""
        self._opened_session.set()
        if not self._done.wait(self._timeout):
            raise IndexUnavailable(
                f"the index at {self._where!r} is still loading after {self._timeout:g}s; try again shortly"
            )
        if self._error is not None:
            raise self._error
        assert self._live is not None
        return self._live


def _wait_for_gate() -> None:
    gate = os.environ.get(LOAD_GATE_ENV)
    while gate and not os.path.exists(gate):
        time.sleep(_GATE_POLL)
