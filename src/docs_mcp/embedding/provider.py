"""The ``EmbeddingProvider`` contract and the registry providers are created from by name.

Built-in providers register exactly like any other: ``register_provider("hash", HashProvider)``.
A provider class takes keyword options (``model``, ``dimensions``, ...) and exposes ``name``,
``model``, ``dimensions``, ``embed_documents`` and ``embed_query``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from docs_mcp.errors import ConfigError


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into vectors. ``dimensions`` is fixed for a provider instance."""

    name: str
    model: str
    dimensions: int

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors for chunk embedding inputs, in input order. Raises ``EmbeddingError``."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The vector of one search query. Raises ``EmbeddingError``."""
        ...


ProviderFactory = Callable[..., EmbeddingProvider]

_REGISTRY: dict[str, ProviderFactory] = {}
# Built-ins are imported on first use so that e.g. `openai` is only imported when asked for.
_BUILTIN_MODULES: dict[str, str] = {
    "hash": "docs_mcp.embedding.hash",
    "openai": "docs_mcp.embedding.openai",
    "local": "docs_mcp.embedding.local",
}
NO_EMBEDDINGS = "none"


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make ``factory`` available as ``create_provider(name, ...)``; replaces an earlier one."""
    _REGISTRY[name] = factory


def provider_names() -> list[str]:
    """Every selectable provider name, ``none`` included."""
    return sorted({NO_EMBEDDINGS, *_BUILTIN_MODULES, *_REGISTRY})


def create_provider(name: str, **options: Any) -> EmbeddingProvider | None:
    """The provider registered as ``name`` built with ``options``; None for ``none``.

    Raises ``ConfigError`` for an unknown name or a provider whose extra is not installed.
    """
    if name == NO_EMBEDDINGS:
        return None
    if name not in _REGISTRY and name in _BUILTIN_MODULES:
        try:
            importlib.import_module(_BUILTIN_MODULES[name])
        except ImportError as error:
            raise ConfigError(
                f"embedding provider {name!r} needs extra packages: pip install 'docs-mcp[{name}]' ({error})"
            ) from error
    factory = _REGISTRY.get(name)
    if factory is None:
        raise ConfigError(
            f"unknown embedding provider {name!r}; choose one of: {', '.join(provider_names())}"
        )
    return factory(**{k: v for k, v in options.items() if v is not None})
