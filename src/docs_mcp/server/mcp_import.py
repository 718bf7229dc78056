"""Import the MCP SDK's server without its client package, its protocol models built on first use.

``mcp/__init__.py`` imports the whole client (``mcp.client``: the session, its stdio and
Streamable HTTP transports, the in-memory transport) and ``mcp/server/__init__.py`` the high-level
``MCPServer`` framework with its resource templates and auth settings: neither is used by this
server. Before the server stack is first imported, :func:`install_lazy_mcp` registers both packages
as lazy modules (the mechanism of :mod:`docs_mcp.store.lancedb_import`): each name their
``__init__`` exports is imported on first access, so ``from mcp import Client`` still works.

The protocol models (``mcp_types``: ~500 pydantic models, two protocol versions' wire types among
them) are the largest cost before ``initialize`` can be answered; a session validates a dozen of
them. While the modules :data:`MODELS_BUILT_ON_FIRST_USE` execute, pydantic's ``defer_build`` is the
default, so each model builds its validator and serializer when first used instead of at import
(the same validation; pydantic's own option, set for those modules only). So do the SDK's
module-level ``TypeAdapter``\\ s: six of them, of the unions of every request, notification and
result, are never used by a server (measured paired over stdio cold starts: ``tools/list`` and the
first result a little sooner). The fields are still collected at import.

What stays, measured with ``python -X importtime``: ``mcp.server.lowlevel.server`` imports starlette,
sse_starlette (and through it uvicorn) and the Streamable HTTP transport at module level, for its
``streamable_http_app`` method, so a stdio server loads them too; the SDK has no seam to avoid that
short of replacing its ``Server`` class. ``tests/server/test_imports.py`` pins both what is deferred
and what is not; ``benchmarks/test_server.py::test_cold_start_to_tools_list`` measures the start.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import sys
from collections.abc import Iterator

from docs_mcp.store.lancedb_import import ExecutedWithin, ReplacingFinder, install_lazy_packages

__all__ = ["LAZY_PACKAGES", "MODELS_BUILT_ON_FIRST_USE", "install_lazy_mcp"]

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"mcp": "2.3", "mcp-types": "2.3", "pydantic": "2.14"}

LAZY_PACKAGES = ("mcp", "mcp.server")
# The modules whose execution (and what they import) defines the protocol's models.
MODELS_BUILT_ON_FIRST_USE = ("mcp_types", "mcp_types.methods")


@contextlib.contextmanager
def _models_built_on_first_use() -> Iterator[None]:
    """Models and type adapters defined in this block build their validators on first use
    (pydantic's ``defer_build``; a ``TypeAdapter`` of a union takes it from no model's config, so
    its switch, the property pydantic reads it through, is set for the block)."""
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


def _models_loader(spec: importlib.machinery.ModuleSpec) -> importlib.abc.Loader | None:
    """The module's own loader within :func:`_models_built_on_first_use` (None: not the shape measured)."""
    if not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
        return None
    return ExecutedWithin(spec.loader, _models_built_on_first_use)


_MODELS = ReplacingFinder({name: _models_loader for name in MODELS_BUILT_ON_FIRST_USE})


def install_lazy_mcp() -> bool:
    """Register the lazy ``mcp`` packages unless the SDK is already imported; True when in place
    (False also when a future ``__init__`` holds more than imports and constants: then the SDK
    imports the ordinary way). The protocol models are built on first use unless ``mcp_types`` is
    already imported."""
    if not any(name in sys.modules for name in MODELS_BUILT_ON_FIRST_USE) and _MODELS not in sys.meta_path:
        sys.meta_path.insert(0, _MODELS)
    return install_lazy_packages(LAZY_PACKAGES)
