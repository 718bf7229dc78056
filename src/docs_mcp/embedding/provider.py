"""The ``EmbeddingProvider`` contract and the registry providers are created from by name.

A provider turns texts into vectors and says, as declared attributes, how a build should feed it:
``batch_size`` texts per request and ``concurrency`` requests in flight, so a build hands each
``embed_documents`` call ``batch_size * concurrency`` texts. ``labels`` name the inputs (chunk ids)
for the provider's warnings, and ``estimate_cost`` says what a run may cost before it starts.

Built-in providers register exactly like any other: ``register_provider("hash", HashProvider.create)``,
declaring which ``EmbeddingSettings`` they take; a setting given to a provider that does not take it is
a ``ConfigError`` naming the flag.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from typing import Protocol, runtime_checkable

from docs_mcp.errors import ConfigError, MissingExtra
from docs_mcp.extras import install_line, missing_extra
from docs_mcp.limits import MAX_EMBEDDING_BATCH_SIZE, MAX_EMBEDDING_CONCURRENCY, MAX_EMBEDDING_DIMENSIONS

__all__ = [
    "NO_EMBEDDINGS",
    "CostEstimate",
    "EmbeddingProvider",
    "EmbeddingSettings",
    "ProviderFactory",
    "create_provider",
    "provider_names",
    "register_provider",
]

NO_EMBEDDINGS = "none"


@dataclass(frozen=True)
class EmbeddingSettings:
    """What a build (flags, the root manifest's ``embedding`` key) asks of a provider; None: its default."""

    model: str | None = None
    dimensions: int | None = None
    batch_size: int | None = None  # texts per request
    concurrency: int | None = None  # requests in flight at once
    base_url: str | None = None  # an OpenAI-compatible server

    def given(self) -> list[str]:
        """The names of the settings that are set."""
        return [f.name for f in fields(self) if getattr(self, f.name) is not None]


@dataclass(frozen=True)
class CostEstimate:
    """An upper bound on what embedding some texts costs: tokens and US dollars at list price."""

    tokens: int
    usd: float


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into vectors. ``dimensions`` is fixed for a provider instance."""

    name: str
    model: str
    dimensions: int
    batch_size: int  # texts per request
    concurrency: int  # requests in flight at once

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        """Vectors for chunk embedding inputs, in input order; ``labels`` (chunk ids) name inputs in
        warnings. Raises ``EmbeddingError``."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The vector of one search query. Raises ``EmbeddingError``."""
        ...

    def estimate_cost(self, texts: Sequence[str]) -> CostEstimate | None:
        """What embedding ``texts`` may cost, or None when it costs nothing (a local model)."""
        ...


ProviderFactory = Callable[[EmbeddingSettings], EmbeddingProvider]


@dataclass(frozen=True)
class _Registered:
    factory: ProviderFactory
    settings: frozenset[str]


_REGISTRY: dict[str, _Registered] = {}
# Built-ins are imported on first use so that e.g. `openai` is only imported when asked for.
_BUILTIN_MODULES: dict[str, str] = {
    "hash": "docs_mcp.embedding.hash",
    "openai": "docs_mcp.embedding.openai",
    "local": "docs_mcp.embedding.local",
}
_COMMON_SETTINGS = ("model", "dimensions", "batch_size", "concurrency")
_SETTING_BOUNDS = {
    "dimensions": MAX_EMBEDDING_DIMENSIONS,
    "batch_size": MAX_EMBEDDING_BATCH_SIZE,
    "concurrency": MAX_EMBEDDING_CONCURRENCY,
}


def register_provider(
    name: str, factory: ProviderFactory, *, settings: Iterable[str] = _COMMON_SETTINGS
) -> None:
    """Make ``factory`` available as ``create_provider(name, ...)``; replaces an earlier one.

    ``settings`` names the ``EmbeddingSettings`` fields the provider takes (by default all but
    ``base_url``).
    """
    known = {f.name for f in fields(EmbeddingSettings)}
    unknown = set(settings) - known
    if unknown:
        raise ValueError(f"unknown embedding settings {sorted(unknown)}; known: {sorted(known)}")
    _REGISTRY[name] = _Registered(factory, frozenset(settings))


def provider_names() -> list[str]:
    """Every selectable provider name, ``none`` included."""
    return sorted({NO_EMBEDDINGS, *_BUILTIN_MODULES, *_REGISTRY})


def create_provider(name: str, settings: EmbeddingSettings | None = None) -> EmbeddingProvider | None:
    """The provider registered as ``name`` made from ``settings``; None for ``none``.

    Raises ``MissingExtra`` (a ``ConfigError``) for a provider whose extra is not installed, and
    ``ConfigError`` for an unknown name, a setting the provider does not take, or a bad setting value.
    """
    if name == NO_EMBEDDINGS:
        return None
    settings = settings or EmbeddingSettings()
    if name not in _REGISTRY and name in _BUILTIN_MODULES:
        try:
            importlib.import_module(_BUILTIN_MODULES[name])
        except ImportError as error:
            raise missing_extra(error, f"embedding provider {name!r}") or MissingExtra(
                f"embedding provider {name!r} needs extra packages: {install_line(name)} ({error})",
                name,
            ) from error
    registered = _REGISTRY.get(name)
    if registered is None:
        raise ConfigError(
            f"unknown embedding provider {name!r}; choose one of: {', '.join(provider_names())}"
        )
    for setting in settings.given():
        if setting not in registered.settings:
            flag = "--embedding-" + setting.replace("_", "-")
            raise ConfigError(f"embedding provider {name!r} does not take {flag}")
    for setting, most in _SETTING_BOUNDS.items():
        value = getattr(settings, setting)
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most
        ):
            flag = "--embedding-" + setting.replace("_", "-")
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise ConfigError(f"{flag} must be a whole number from 1 to {most:,} (got {shown})")
    return registered.factory(settings)
