"""Import cuts: what ``docs-mcp serve`` leaves out of the libraries it imports at every cold start.

Other projects' internals are not ours to patch. Each cut below is here only because the cold-start
figures, measured with it and without it paired in one run, show it pays (the README's measured table), and
each names the upstream change that retires it. :func:`install` puts them in place; ``serve`` calls
it first and nothing else does, so ``build`` and every other command import the libraries the
ordinary way. A cut touches one library within the versions it was measured with (:data:`CUTS`;
``pyproject.toml`` declares the same bounds): with any other version installed it is left out and
that library imports the ordinary way, so an upstream release can make a cut useless, never break.

- ``rest-client``: ``lance_namespace_urllib3_client``, an OpenAPI-generated client for remote
  namespaces (~300 modules) that lancedb imports and a local index never uses. Its packages are
  lazy packages (:mod:`.lazy`): each name their ``__init__`` imports is resolved on first access.
  Retired by lance PR #9273 (lazy namespace client, merged): drop it once the lance-namespace
  release with it is the one pinned.
- ``namespace-exports``: ``lance_namespace``'s ``__init__`` imports ~110 of that client's pydantic
  models by name to re-export them; it runs with that statement deferred (:mod:`.deferring`, an AST
  rewrite of that one module that checks the shape it was measured with). Retired by the same PR.
- ``overrides``: on Python 3.11 lancedb decorates ~100 methods with the ``overrides`` package's
  ``@override``, which inspects each at import. While lancedb's modules execute, ``overrides`` is
  what lancedb itself uses on 3.12+: ``typing_extensions.override`` (a marker) and a plain
  ``EnforceOverrides`` base; afterwards ``import overrides`` gives the real package. Retired by
  Python 3.12 (lancedb uses ``typing.override`` there, and this cut does nothing).
- ``mcp-client``: ``mcp/__init__.py`` imports the whole client and ``mcp/server/__init__.py`` the
  ``MCPServer`` framework, neither used by this server; both are lazy packages. Retired by MCP
  python-sdk PR #3242 (lazy imports).
- ``model-builds``: the protocol models (``mcp_types``, ~500 pydantic models; a session validates a
  dozen) build their validators on first use: pydantic's own ``defer_build`` is the default while
  those modules execute, and so is it for their module-level ``TypeAdapter``\\ s (six unions of
  every request and result a server never validates), through pydantic's private
  ``TypeAdapter._defer_build`` property, its only switch for an adapter of a union. The same
  validation, later. Retired by MCP python-sdk PR #3242 (deferred model builds).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import re
import sys
import types
import typing
from collections.abc import Iterator

from docs_mcp.import_cuts.deferring import deferring
from docs_mcp.import_cuts.lazy import LoaderFor, ReplacingFinder, executed_within, install_lazy_packages

__all__ = ["CUTS", "MEASURED_WITH", "install", "supported"]

Version = tuple[int, int]
# cut -> the distributions it touches -> the versions it was measured in: [lowest, first excluded).
CUTS: dict[str, dict[str, tuple[Version, Version]]] = {
    "rest-client": {"lance-namespace-urllib3-client": ((0, 13), (0, 14))},
    "namespace-exports": {"lance-namespace": ((0, 13), (0, 14))},
    "overrides": {"lancedb": ((0, 40), (0, 41)), "overrides": ((7, 7), (8, 0))},
    "mcp-client": {"mcp": ((2, 3), (2, 4))},
    "model-builds": {"mcp-types": ((2, 3), (2, 4)), "pydantic": ((2, 12), (3, 0))},
}
# The versions the figures were measured with (see tests/test_replacements.py).
MEASURED_WITH = {
    "lance-namespace": "0.13",
    "lance-namespace-urllib3-client": "0.13",
    "lancedb": "0.40",
    "mcp": "2.3",
    "mcp-types": "2.3",
    "pydantic": "2.14",
    **({"overrides": "7.7"} if sys.version_info < (3, 12) else {}),
}

_REST_CLIENT = (
    "lance_namespace_urllib3_client",
    "lance_namespace_urllib3_client.api",
    "lance_namespace_urllib3_client.models",
)
_MCP_PACKAGES = ("mcp", "mcp.server")
_PROTOCOL_MODULES = ("mcp_types", "mcp_types.methods")


def _version(distribution: str) -> Version | None:
    """The installed ``distribution``'s (major, minor), or None when it is not installed."""
    # importlib.metadata is imported anyway by the time the server answers (pydantic's plugin lookup).
    import importlib.metadata

    try:
        found = re.match(r"(\d+)\.(\d+)", importlib.metadata.version(distribution))
    except importlib.metadata.PackageNotFoundError:
        return None
    return (int(found.group(1)), int(found.group(2))) if found else None


def supported(cut: str) -> bool:
    """Whether every distribution ``cut`` touches is installed in the versions it was measured in."""
    for distribution, (lowest, excluded) in CUTS[cut].items():
        version = _version(distribution)
        if version is None or not lowest <= version < excluded:
            return False
    return True


class _EnforceNothing:
    """lancedb's ``EnforceOverrides`` base on Python 3.12+: a plain class."""


@contextlib.contextmanager
def _override_markers() -> Iterator[None]:
    """While lancedb imports, ``overrides`` is what lancedb itself uses on Python 3.12+."""
    from typing_extensions import override  # typing.override's backport: marks, checks nothing

    markers = types.ModuleType("overrides", "lancedb's Python 3.12+ override markers (docs_mcp.import_cuts).")
    markers.__dict__.update(override=override, overrides=override, final=typing.final)
    markers.__dict__["EnforceOverrides"] = _EnforceNothing
    sys.modules["overrides"] = markers
    try:
        yield
    finally:
        if sys.modules.get("overrides") is markers:  # later imports get the real package
            del sys.modules["overrides"]


def _lancedb_loader(spec: importlib.machinery.ModuleSpec) -> importlib.abc.Loader | None:
    """Run as lancedb is first imported (in the server's background load): the REST client's lazy
    packages; lancedb's own loader within :func:`_override_markers`, or None (the ordinary import)."""
    if supported("rest-client"):
        install_lazy_packages(_REST_CLIENT)
    if sys.version_info >= (3, 12) or "overrides" in sys.modules or not supported("overrides"):
        return None
    return executed_within(_override_markers)(spec)


def _namespace_loader(spec: importlib.machinery.ModuleSpec) -> importlib.abc.Loader | None:
    if not supported("namespace-exports"):
        return None
    return deferring(frozenset({"lance_namespace_urllib3_client.models"}))(spec)


@contextlib.contextmanager
def _models_built_on_first_use() -> Iterator[None]:
    """Models and type adapters defined in this block build their validators on first use."""
    from pydantic import BaseModel, TypeAdapter

    config = BaseModel.model_config
    before = config.get("defer_build")
    config["defer_build"] = True
    adapter_switch = TypeAdapter.__dict__.get("_defer_build")
    if isinstance(adapter_switch, property):
        TypeAdapter._defer_build = property(lambda _adapter: True)  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        if isinstance(adapter_switch, property):
            TypeAdapter._defer_build = adapter_switch  # type: ignore[method-assign,assignment]
        if before is None:
            config.pop("defer_build", None)
        else:
            config["defer_build"] = before


_installed: set[str] = set()


def install() -> frozenset[str]:
    """Put in place every cut whose library is not imported yet and is installed in the versions it
    was measured in (once: a second call adds nothing); the names of the cuts in place. lancedb's
    act when it is first imported, and check their versions then."""
    if "lancedb" not in sys.modules and "rest-client" not in _installed:
        lance: dict[str, LoaderFor] = {"lancedb": _lancedb_loader, "lance_namespace": _namespace_loader}
        ReplacingFinder(lance).install()
        _installed.update({"rest-client", "namespace-exports"})
        if sys.version_info < (3, 12):
            _installed.add("overrides")
    protocol_imported = any(name in sys.modules for name in _PROTOCOL_MODULES)
    if "model-builds" not in _installed and not protocol_imported and supported("model-builds"):
        built_on_first_use = executed_within(_models_built_on_first_use)
        ReplacingFinder(dict.fromkeys(_PROTOCOL_MODULES, built_on_first_use)).install()
        _installed.add("model-builds")
    if "mcp-client" not in _installed and supported("mcp-client") and install_lazy_packages(_MCP_PACKAGES):
        _installed.add("mcp-client")
    return frozenset(_installed)
