"""``serve``: open an index and answer MCP clients over stdio or HTTP until told to stop.

The index is a local folder (reopened when ``docs-mcp build`` replaces it) or an ``oci://``
reference, pulled through the cache and, with ``refresh_interval``, followed as its tag moves.

Every way of serving one index answers ``initialize`` and ``tools/list`` from its manifest while it
opens in the background (:mod:`docs_mcp.server.hub.deferred`): a folder at once, an ``oci://`` index
once pulled (or found in the cache); several libraries likewise, each on its own
(:mod:`docs_mcp.server.hub.opening`).

Imports nothing heavy itself: the MCP server is imported with the cyclic collector paused (see
:mod:`docs_mcp.server.startup.collector`), LanceDB in the background (over stdio once the session's
``tools/list`` is answered: :mod:`docs_mcp.server.hub.deferred`), and only the chosen transport, so
serving over stdio never loads this package's HTTP module; the import cuts
(:mod:`docs_mcp.import_cuts`) are installed first.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docs_mcp import import_cuts
from docs_mcp.errors import UsageError
from docs_mcp.redact import redact
from docs_mcp.server.startup.allocator import cap_arenas, trim_periodically
from docs_mcp.server.startup.collector import collector_paused
from docs_mcp.server.startup.options import (
    OCI_SCHEME,
    REFRESH_INTERVAL_RANGE,
    HttpOptions,
    RegistryOptions,
    Transport,
    refresh_interval_allowed,
)
from docs_mcp.server.tools.budget import max_tokens_from_env, parse_max_tokens

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
    (None: ``DOCS_MCP_MAX_TOKENS``, else :data:`docs_mcp.server.tools.budget.MAX_TOKENS_DEFAULT`);
    ``feedback_log`` turns on the ``docs_feedback`` tool, appending its reports to that file.

    Raises:
        IndexUnavailable: the index or its manifest is missing or unreadable (a table that fails to
            open in the background is each call's error and ``/healthz``'s; on stdio also, once
            the input ends, this function's).
        IndexCompatibilityError: the index was built by an incompatible version or provider.
        ConfigError: a malformed reference, a refresh interval for a local folder, or a budget out of
            range.
        RegistryError: an ``oci://`` index could not be pulled (unauthorized, not found, rejected).

    ``index`` may also be the ``--index`` values (``REF``, or ``NAME=REF`` for each of several
    libraries, see :mod:`docs_mcp.server.hub.specs`); one bare ``REF`` is served as above.
    """
    cap_arenas()  # before the server stack starts a thread (startup/allocator.py)
    trim_periodically()  # what the two arenas keep of freed memory, given back every few seconds
    import_cuts.install()  # before the server stack imports the MCP SDK and the load LanceDB
    options = registry or RegistryOptions()
    if options.refresh_interval is not None and not refresh_interval_allowed(options.refresh_interval):
        raise UsageError(
            f"--refresh-interval {options.refresh_interval:g} is not a number of seconds "
            f"{REFRESH_INTERVAL_RANGE}"
        )
    budget = (
        max_tokens_from_env() if max_tokens is None else parse_max_tokens(str(max_tokens), "--max-tokens")
    )
    _serve_index(index, _Serving(transport, http, options, announce, budget, feedback_log))


@dataclass(frozen=True)
class _Serving:
    """What :func:`serve` was asked, checked."""

    transport: Transport
    http: HttpOptions | None
    registry: RegistryOptions
    announce: Callable[[str], None]
    max_tokens: int
    feedback_log: Path | None


def _serve_index(index: Path | str | Sequence[str], serving: _Serving) -> None:
    """:func:`serve` once its options are checked: the libraries ``index`` names (one bare ``REF``
    is a hub of one unnamed library), listening (or reading stdin) at once, ``initialize`` and
    ``tools/list`` answered from the manifests while the indexes open in the background
    (:mod:`docs_mcp.server.hub.deferred`, :mod:`docs_mcp.server.startup.launch`)."""
    from docs_mcp.server.hub.specs import LibrarySpec, parse_index_specs
    from docs_mcp.server.startup.launch import Launch

    specs = [LibrarySpec(None, str(index))] if isinstance(index, (str, Path)) else parse_index_specs(index)
    reference = specs[0].reference
    if specs[0].name is None and _URL_SCHEME.match(reference) and not reference.startswith(OCI_SCHEME):
        raise UsageError(
            f"--index {redact(reference)!r} is a URL; give an index folder or oci://REGISTRY/REPOSITORY:TAG"
        )
    with collector_paused():  # the server stack and the transport's (see docs_mcp.server.startup.collector)
        from docs_mcp.server.hub.deferred import OPENING_WAIT
        from docs_mcp.server.hub.opening import open_hub

        importlib.import_module(f"docs_mcp.server.transport.{serving.transport}")
    launch = Launch(serving.transport, serving.announce)
    ready = open_hub(
        specs,
        serving.registry,
        announce=serving.announce,
        max_tokens=serving.max_tokens,
        feedback_log=serving.feedback_log,
        wait=False,
        on_loaded=launch.on_loaded,
        on_failure=launch.on_failure,
        # Over stdio the loads yield to the session's opening exchange (docs_mcp.server.hub.deferred).
        opening_wait=OPENING_WAIT if serving.transport == "stdio" else 0.0,
    )
    try:
        indexes = [library.index for library in ready.hub.libraries]
        launch.serve(ready.server, indexes, ready.summary, health=ready.health, http=serving.http)
    finally:
        ready.stop()
