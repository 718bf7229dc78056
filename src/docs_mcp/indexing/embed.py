"""The embedding run of a build: which provider and settings, the cost estimate, and the vectors.

Settings come from the ``--embedding-*`` flags over the docs' root manifest ``embedding`` key; the
manifest's settings apply only to the provider it names, so ``--embedding-provider local`` on a docs
folder configured for openai does not inherit openai's model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from pathlib import Path

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.embedding.embedding_cache import CachingProvider
from docs_mcp.embedding.provider import NO_EMBEDDINGS, EmbeddingProvider, EmbeddingSettings, create_provider
from docs_mcp.errors import EmbeddingError, MissingExtra
from docs_mcp.extras import install_line


def resolve_settings(
    provider: str | None, flags: EmbeddingSettings, configured: Mapping[str, object] | None
) -> tuple[str, EmbeddingSettings]:
    """The provider name and its settings: ``flags`` over the root manifest's ``embedding`` key."""
    configured = dict(configured or {})
    configured_name = str(configured.pop("provider", NO_EMBEDDINGS))
    name = provider or configured_name
    known = {f.name for f in fields(EmbeddingSettings)}
    base = EmbeddingSettings(**{k: v for k, v in configured.items() if k in known})  # type: ignore[arg-type]
    if name != configured_name:
        base = EmbeddingSettings()
    return name, replace(base, **{name: getattr(flags, name) for name in flags.given()})


def make_provider(name: str, settings: EmbeddingSettings, cache_dir: Path) -> CachingProvider | None:
    """The provider behind the embedding cache in ``cache_dir``; None for ``none``.

    Raises ``ConfigError`` (unknown provider, missing extra, a setting it does not take).
    """
    try:
        provider = create_provider(name, settings)
    except MissingExtra as missing:
        # A build needs the build extra as well (it is installed: this code runs); name the whole line.
        raise MissingExtra(
            f"building with embedding provider {name!r} needs the {missing.extra} extra: "
            f"{install_line('build', missing.extra)}",
            missing.extra,
        ) from missing
    return CachingProvider(provider, cache_dir) if provider is not None else None


def cost_line(provider: EmbeddingProvider, chunks: Sequence[Chunk]) -> str | None:
    """Before a paid run, what it may cost (an upper bound: cached chunks cost nothing); None if free."""
    estimate = provider.estimate_cost([chunk.embedding_input for chunk in chunks])
    if estimate is None:
        return None
    return f"{provider.model}: at most ~{estimate.tokens:,} tokens, ~${estimate.usd:.2f} before cache hits"


def embed_chunks(
    provider: EmbeddingProvider, chunks: Sequence[Chunk], report: Callable[[int, int], None]
) -> list[list[float]]:
    """One vector per chunk, in order. Each call carries one request's batch for every request the
    provider runs at once (``batch_size * concurrency`` texts), so its concurrency is really used.
    Chunks go to the provider shortest first, so each call holds inputs of about one length (a local
    model pads every input of a batch to its longest), and their vectors are put back in chunk order.
    ``report(done, total)`` follows each call (the caller announces the start).

    Raises ``EmbeddingError`` when the provider fails or returns vectors of the wrong count or width.
    """
    step = max(1, provider.batch_size) * max(1, provider.concurrency)
    order = sorted(range(len(chunks)), key=lambda i: len(chunks[i].embedding_input))
    vectors: list[list[float]] = [[] for _ in chunks]
    total = len(chunks)
    for start in range(0, total, step):
        batch = [chunks[i] for i in order[start : start + step]]
        got = provider.embed_documents([c.embedding_input for c in batch], labels=[c.id for c in batch])
        if len(got) != len(batch) or any(len(v) != provider.dimensions for v in got):
            raise EmbeddingError(
                f"embedding provider {provider.name!r} returned {len(got)} vectors for {len(batch)} inputs "
                f"or vectors not of {provider.dimensions} dimensions"
            )
        for position, vector in zip(order[start : start + step], got, strict=True):
            vectors[position] = vector
        report(min(start + step, total), total)
    return vectors
