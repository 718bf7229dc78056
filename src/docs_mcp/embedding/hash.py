"""``hash``: deterministic vectors derived from the text's words, for tests and offline builds.

Texts sharing words get closer vectors (a hashed bag of words), so vector search over it behaves
plausibly, but it has no semantic knowledge.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence

from docs_mcp.embedding.provider import CostEstimate, EmbeddingSettings, register_provider

_WORD = re.compile(r"\w+")
DEFAULT_MODEL = "hash-bow-v1"
DEFAULT_DIMENSIONS = 64
DEFAULT_BATCH_SIZE = 64


class HashProvider:
    name = "hash"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        dimensions: int = DEFAULT_DIMENSIONS,
        batch_size: int = DEFAULT_BATCH_SIZE,
        concurrency: int = 1,
    ) -> None:
        self.model = model
        self.dimensions = int(dimensions)
        self.batch_size = int(batch_size)
        self.concurrency = int(concurrency)

    @classmethod
    def create(cls, settings: EmbeddingSettings) -> HashProvider:
        return cls(
            model=settings.model or DEFAULT_MODEL,
            dimensions=settings.dimensions or DEFAULT_DIMENSIONS,
            batch_size=settings.batch_size or DEFAULT_BATCH_SIZE,
            concurrency=settings.concurrency or 1,
        )

    def _embed(self, text: str) -> list[float]:
        vector = [0.0] * self.dimensions
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            slot = int.from_bytes(digest[:4], "little") % self.dimensions
            vector[slot] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)

    def estimate_cost(self, texts: Sequence[str]) -> CostEstimate | None:
        return None


register_provider("hash", HashProvider.create)
