"""The embedding run of a build: which provider and settings, the cost estimate, and the vectors.

Settings come from the ``--embedding-*`` flags over the docs' root manifest ``embedding`` key; the
manifest's settings apply only to the provider it names, so ``--embedding-provider local`` on a docs
folder configured for openai does not inherit openai's model.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.scan import ScannedFile
from docs_mcp.embedding.embedding_cache import CachingProvider, cache_key
from docs_mcp.embedding.provider import NO_EMBEDDINGS, EmbeddingProvider, EmbeddingSettings, create_provider
from docs_mcp.errors import EmbeddingError, MissingExtra
from docs_mcp.extras import install_line

Matrix = np.ndarray[Any, np.dtype[np.float32]]


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


class EmbeddingPlan:
    """What the build's embedding run will do, counted file by file as the corpus is walked: inputs
    to embed (distinct ones not cached; one key each is all that is kept), cached, repeated, and what
    it may cost (``cost_line``)."""

    def __init__(self, provider: CachingProvider) -> None:
        self._provider = provider
        self._new: set[bytes] = set()
        self.total = 0
        self.cached = 0
        self._tokens = 0
        self._usd = 0.0
        self._priced = True

    def add(self, chunks: Sequence[Chunk]) -> None:
        """Count the embedding inputs of ``chunks``."""
        provider = self._provider
        texts = [chunk.embedding_input for chunk in chunks]
        for text in texts:
            key = cache_key(provider.name, provider.model, provider.dimensions, text)
            if key in provider.store:
                self.cached += 1
            else:
                self._new.add(key)
        self.total += len(texts)
        estimate = provider.estimate_cost(texts) if texts else None
        if estimate is None:
            self._priced = self._priced and not texts
        else:
            self._tokens += estimate.tokens
            self._usd += estimate.usd

    @property
    def to_embed(self) -> int:
        return len(self._new)

    def line(self) -> str:
        """``N to embed, M cached[, K repeated]``."""
        repeated = self.total - self.to_embed - self.cached
        return f"{self.to_embed} to embed, {self.cached} cached" + (
            f", {repeated} repeated" if repeated else ""
        )

    def cost_line(self) -> str | None:
        """Before a paid run, what it may cost (an upper bound: cached chunks cost nothing); None if free."""
        if not self._priced or not self.total:
            return None
        model = self._provider.model
        return f"{model}: at most ~{self._tokens:,} tokens, ~${self._usd:.2f} before cache hits"


# Chunks embedded at once while the rows stream: inputs of one window are sent shortest first (see
# ``embed_chunks``), so a larger window pads less and holds more vectors.
EMBED_WINDOW = 4096


class VectorStream:
    """The vectors of the files passing through ``files``, embedded a window at a time, handed out in
    the same order by ``take``: what the row batches of those files need, never the corpus's."""

    def __init__(self, provider: EmbeddingProvider, report: Callable[[int, int], None]) -> None:
        self._provider = provider
        self._report = report
        self._queue: deque[Matrix] = deque()
        self._ready = 0

    def files(self, files: Iterable[ScannedFile], window: int = EMBED_WINDOW) -> Iterator[ScannedFile]:
        """``files``, each passed on once its chunks' vectors are ready. Raises ``EmbeddingError``."""
        pending: list[ScannedFile] = []
        count = 0
        for scanned in files:
            pending.append(scanned)
            count += len(scanned.file.chunks)
            if count >= window:
                self._embed(pending)
                yield from pending
                pending, count = [], 0
        self._embed(pending)
        yield from pending

    def _embed(self, files: list[ScannedFile]) -> None:
        chunks = [chunk for scanned in files for chunk in scanned.file.chunks]
        if chunks:
            vectors = embed_chunks(self._provider, chunks, self._report)
            self._queue.append(np.asarray(vectors, dtype=np.float32).reshape(len(chunks), -1))
            self._ready += len(chunks)

    def take(self, count: int) -> Matrix:
        """The next ``count`` vectors. Raises ``ValueError`` when fewer are ready."""
        if count > self._ready:
            raise ValueError(f"{self._ready} vectors for {count} chunks")
        parts: list[Matrix] = []
        while count:
            head = self._queue[0]
            part, rest = head[:count], head[count:]
            parts.append(part)
            count -= len(part)
            self._ready -= len(part)
            if len(rest):
                self._queue[0] = rest
            else:
                self._queue.popleft()
        return np.concatenate(parts) if len(parts) != 1 else parts[0]


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
