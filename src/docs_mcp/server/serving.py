"""``serve``: open an index and answer MCP clients over stdio or HTTP until told to stop.

The index is a local folder (reopened when ``docs-mcp build`` replaces it) or an ``oci://``
reference, pulled through the cache and, with ``refresh_interval``, followed as its tag moves.

Every way of serving one index answers ``initialize`` and ``tools/list`` from its manifest while it
opens in the background (:mod:`docs_mcp.server.deferred`): a folder at once, an ``oci://`` index
once pulled (or found in the cache). Several libraries: :mod:`docs_mcp.server.hub_serving`.

Imports nothing heavy itself: the MCP server is imported with the cyclic collector paused (see
:mod:`docs_mcp.server.startup`), LanceDB in the background (over stdio once the session's
``tools/list`` is answered: :mod:`docs_mcp.server.deferred`), and only the chosen transport, so
serving over stdio never loads this package's HTTP module.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docs_mcp import import_cuts
from docs_mcp.errors import ConfigError, UsageError
from docs_mcp.redact import redact
from docs_mcp.server.budget import max_tokens_from_env, parse_max_tokens
from docs_mcp.server.options import (
    MIN_REFRESH_INTERVAL,
    OCI_SCHEME,
    HttpOptions,
    RegistryOptions,
    Transport,
)
from docs_mcp.server.startup import collector_paused

if TYPE_CHECKING:
    from docs_mcp.server.launch import Launch
    from docs_mcp.server.opening import DeferredServer

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
        IndexUnavailable: the index or its manifest is missing or unreadable (a table that fails to
            open in the background is each call's error and ``/healthz``'s; on stdio also, once
            the input ends, this function's).
        IndexCompatibilityError: the index was built by an incompatible version or provider.
        ConfigError: a malformed reference, a refresh interval for a local folder, or a budget out of
            range.
        RegistryError: an ``oci://`` index could not be pulled (unauthorized, not found, rejected).

    ``index`` may also be the ``--index`` values (``REF``, or ``NAME=REF`` for each of several
    libraries, see :mod:`docs_mcp.server.library`); one bare ``REF`` is served as above.
    """
    import_cuts.install()  # before the server stack imports the MCP SDK and the load LanceDB
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
    """:func:`serve` once its options are checked: several libraries, or one index."""
    options = serving.registry
    if not isinstance(index, (str, Path)):
        from docs_mcp.server.library import parse_index_specs

        specs = parse_index_specs(index)
        if len(specs) > 1 or specs[0].name is not None:
            with collector_paused():
                from docs_mcp.server.hub_serving import serve_hub
            serve_hub(
                specs,
                transport=serving.transport,
                http=serving.http,
                announce=serving.announce,
                registry=options,
                max_tokens=serving.max_tokens,
                feedback_log=serving.feedback_log,
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
    _serve_one(index, serving)


def _serve_one(index: Path | str, serving: _Serving) -> None:
    """Serve one index (a folder, or ``oci://REF`` pulled first): listening (or reading stdin) at
    once, ``initialize`` and ``tools/list`` answered from its manifest while it opens in the
    background (:mod:`docs_mcp.server.deferred`, :mod:`docs_mcp.server.launch`)."""
    from docs_mcp.server.health import index_health
    from docs_mcp.server.launch import Launch

    opening = _Opening(Launch(serving.transport, serving.announce), serving)
    artifact: dict[str, Any] = {}  # what /healthz adds for an oci:// index: the artifact served
    if str(index).startswith(OCI_SCHEME):
        opened, stop_following = _from_registry(str(index), artifact, opening)
    else:
        opened = _from_folder(Path(index), opening)
        stop_following = _nothing
    manifest = opened.manifest
    summary = f"index {manifest.identity} ({manifest.chunk_count} chunks, {manifest.file_count} files)"
    try:
        opening.launch.serve(
            opened.server,
            [opened.index],
            summary,
            health=lambda: {**index_health(opened.index), **artifact},
            http=serving.http,
        )
    finally:
        stop_following()


def _nothing() -> None:
    """Nothing to stop."""


@dataclass(frozen=True)
class _Opening:
    """How :func:`_serve_one` opens its index: with the launch's load callbacks, as ``serving`` says."""

    launch: Launch
    serving: _Serving

    def deferred(self, path: Path, **settings: Any) -> DeferredServer:
        """:func:`docs_mcp.server.opening.open_deferred` of ``path``, the server stack and the
        transport imported with the collector paused (see docs_mcp.server.startup)."""
        with collector_paused():
            from docs_mcp.server.deferred import OPENING_WAIT
            from docs_mcp.server.opening import open_deferred

            importlib.import_module(f"docs_mcp.server.{self.serving.transport}")  # its stack too
            return open_deferred(
                path,
                on_loaded=self.launch.on_loaded,
                on_failure=self.launch.on_failure,
                max_tokens=self.serving.max_tokens,
                feedback_log=self.serving.feedback_log,
                # Over stdio the load yields to the session's opening exchange (server.deferred).
                opening_wait=OPENING_WAIT if self.serving.transport == "stdio" else 0.0,
                **settings,
            )


def _from_folder(index: Path, opening: _Opening) -> DeferredServer:
    """A local index folder, reopened whenever a build replaces it."""
    if opening.serving.registry.refresh_interval is not None:
        raise ConfigError("--refresh-interval follows a registry tag; give --index oci://REF")
    announce = opening.serving.announce
    return opening.deferred(
        index,
        watch=True,
        on_swap=lambda served, path: announce(
            f"{path} was rebuilt: now serving index {served.index.identity}"
        ),
    )


def _from_registry(
    reference: str, artifact: dict[str, Any], opening: _Opening
) -> tuple[DeferredServer, Callable[[], None]]:
    """Pull ``reference`` (the manifest comes with it: a failed pull stops here), open it in the
    background and (with a refresh interval) follow its tag."""
    from docs_mcp.server.registry_source import PulledIndex, RegistrySource, follow

    options, announce = opening.serving.registry, opening.serving.announce
    source = RegistrySource(reference, cache_dir=options.cache_dir, insecure=options.insecure)
    if options.refresh_interval is not None and source.reference.digest:
        raise ConfigError("--refresh-interval follows a tag; this reference is pinned to a digest")
    pulled = source.start()
    artifact["artifact"] = {"reference": str(pulled.reference), "digest": pulled.digest}
    opened = opening.deferred(pulled.path)
    if options.refresh_interval is None:
        return opened, _nothing

    def on_swap(new: PulledIndex) -> None:
        artifact["artifact"] = {"reference": str(new.reference), "digest": new.digest}
        announce(f"now serving {new.reference}")

    return opened, follow(source, opened.index, pulled, options.refresh_interval, on_swap)
