"""``openai``: embeddings from the OpenAI API or any server speaking its ``/v1/embeddings`` format.

Retries follow the one policy every OpenAI-compatible client here shares (``docs_mcp.openai_api``).
Batches go out concurrently from a small thread pool; results come back in input order whatever
order the server lists them in.

The API key comes from the ``api_key`` option or ``OPENAI_API_KEY`` and is never logged. Without
one, a ``base_url`` on this machine (localhost, 127.0.0.1, ::1: Ollama, vLLM, LiteLLM run locally)
is sent a placeholder key, since such servers usually need none; anywhere else it is a
``ConfigError``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import openai
from tenacity import RetryCallState

from docs_mcp.embedding.provider import CostEstimate, EmbeddingSettings, register_provider
from docs_mcp.errors import ConfigError, EmbeddingError
from docs_mcp.openai_api import RetryPolicy, describe, is_retryable
from docs_mcp.openai_api import api_key as resolve_key
from docs_mcp.redact import redact

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "text-embedding-3-large"
NATIVE_DIMENSIONS = {
    "text-embedding-3-large": 3072,
    "text-embedding-3-small": 1536,
    "text-embedding-ada-002": 1536,
}
# US dollars per million input tokens (OpenAI list prices for the embedding models).
PRICE_PER_MILLION_TOKENS = {
    "text-embedding-3-large": 0.13,
    "text-embedding-3-small": 0.02,
    "text-embedding-ada-002": 0.10,
}
MAX_INPUT_TOKENS = 8191
# The API also caps the tokens summed over one request (300k); stay well below it.
MAX_REQUEST_TOKENS = 250_000


def estimate_tokens(text: str) -> int:
    """A conservative (high) token estimate without a tokenizer.

    English prose runs about 4 characters a token and code about 3; any non-ASCII character may
    be a token of its own. Counting ASCII at 3 characters a token and everything else at one
    overestimates, so truncating by this estimate keeps an input under the real limit.
    """
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars)


def estimate_cost(texts: Sequence[str], model: str = DEFAULT_MODEL) -> tuple[int, float]:
    """``(tokens, usd)`` for embedding ``texts`` with ``model``: tokens at about 4 characters each.

    A model without a known list price (a self-hosted one) costs 0.0. Raises nothing.
    """
    tokens = sum(math.ceil(len(text) / 4) for text in texts)
    return tokens, tokens * PRICE_PER_MILLION_TOKENS.get(model, 0.0) / 1_000_000


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of ``text`` whose ``estimate_tokens`` is at most ``max_tokens``."""
    if estimate_tokens(text) <= max_tokens:
        return text
    low, high = 0, len(text)  # estimate_tokens is monotone in the prefix length
    while low < high:
        middle = (low + high + 1) // 2
        if estimate_tokens(text[:middle]) <= max_tokens:
            low = middle
        else:
            high = middle - 1
    return text[:low]


class OpenAIProvider:
    """Embeds through an OpenAI-compatible ``/v1/embeddings`` endpoint.

    Raises ``ConfigError`` for bad options or a missing key; ``embed_documents`` and
    ``embed_query`` raise ``EmbeddingError``.
    """

    name = "openai"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        dimensions: int | None = None,
        batch_size: int = 128,
        concurrency: int = 4,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        query_timeout: float = 5.0,
        max_attempts: int = 6,
        max_retry_wait: float = 60.0,
        backoff_base: float = 1.0,
        max_input_tokens: int = MAX_INPUT_TOKENS,
    ) -> None:
        if dimensions is None:
            if model not in NATIVE_DIMENSIONS:
                raise ConfigError(
                    f"the dimensions of embedding model {model!r} are unknown; pass --embedding-dimensions"
                )
            dimensions = NATIVE_DIMENSIONS[model]
        if int(dimensions) <= 0 or int(batch_size) <= 0 or int(concurrency) <= 0 or int(max_attempts) <= 0:
            raise ConfigError("embedding dimensions, batch size, concurrency and attempts must be positive")
        key = resolve_key(api_key, base_url)
        if key is None:
            raise ConfigError(
                "the openai embedding provider needs an API key: set OPENAI_API_KEY "
                "(or point --embedding-base-url at a local server that needs none)"
            )
        self.model = model
        self.dimensions = int(dimensions)
        self.batch_size = int(batch_size)
        self.concurrency = int(concurrency)
        self.base_url = base_url
        self.query_timeout = float(query_timeout)
        self.max_attempts = int(max_attempts)
        self.retry = RetryPolicy(int(max_attempts), float(backoff_base), float(max_retry_wait))
        self.max_input_tokens = int(max_input_tokens)
        # Only the -3 models can shorten their vectors; others must return what we expect as is.
        native = NATIVE_DIMENSIONS.get(model)
        self._send_dimensions = model.startswith("text-embedding-3") and self.dimensions != native
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=float(timeout), max_retries=0)

    @classmethod
    def create(cls, settings: EmbeddingSettings) -> OpenAIProvider:
        """The provider for a build's settings (the key from ``OPENAI_API_KEY``)."""
        options = {name: getattr(settings, name) for name in settings.given()}
        return cls(**options)

    def estimate_cost(self, texts: Sequence[str]) -> CostEstimate | None:
        """Tokens at about 4 characters each, at the model's list price (0 for an unknown model)."""
        tokens, usd = estimate_cost(texts, self.model)
        return CostEstimate(tokens, usd)

    def __repr__(self) -> str:  # never shows the key
        return (
            f"OpenAIProvider(model={self.model!r}, dimensions={self.dimensions}, "
            f"base_url={redact(self.base_url) if self.base_url else None!r})"
        )

    # -- public ---------------------------------------------------------------

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        """Vectors for ``texts`` in input order; ``labels`` (e.g. chunk ids) name truncated inputs.

        Raises ``EmbeddingError`` when the key is rejected, a request is refused, or retries run out.
        """
        if labels is not None and len(labels) != len(texts):
            raise ValueError("labels must match texts one to one")
        inputs = [self._fit(text, i, labels) for i, text in enumerate(texts)]
        batches = list(self._batches(inputs))
        if len(batches) <= 1 or self.concurrency == 1:
            results = [self._embed_batch(batch) for batch in batches]
        else:
            with ThreadPoolExecutor(max_workers=min(self.concurrency, len(batches))) as pool:
                results = list(pool.map(self._embed_batch, batches))
        return [vector for batch in results for vector in batch]

    def embed_query(self, text: str) -> list[float]:
        """The query's vector, in one attempt bounded by ``query_timeout`` (search falls back on failure).

        Raises ``EmbeddingError``.
        """
        client = self._client.with_options(timeout=self.query_timeout)
        try:
            return self._request(client, [self._fit(text, 0, ["query"])])[0]
        except openai.OpenAIError as error:
            raise self._as_embedding_error(error, attempts=1) from error

    # -- internals ------------------------------------------------------------

    def _fit(self, text: str, index: int, labels: Sequence[str] | None) -> str:
        if not text:
            return " "  # the API rejects empty strings; a blank embeds as "nothing"
        fitted = truncate_to_tokens(text, self.max_input_tokens)
        if fitted is not text:
            name = labels[index] if labels is not None else f"input #{index} ({text[:40]!r}...)"
            logger.warning(
                "embedding input %s is over the %d-token limit of %s; truncated from %d to %d characters",
                name,
                self.max_input_tokens,
                self.model,
                len(text),
                len(fitted),
            )
        return fitted

    def _batches(self, inputs: list[str]) -> Iterator[list[str]]:
        batch: list[str] = []
        tokens = 0
        for text in inputs:
            cost = estimate_tokens(text)
            if batch and (len(batch) >= self.batch_size or tokens + cost > MAX_REQUEST_TOKENS):
                yield batch
                batch, tokens = [], 0
            batch.append(text)
            tokens += cost
        if batch:
            yield batch

    def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        try:
            return self.retry.retrying(before_sleep=self._log_retry)(self._request, self._client, batch)
        except openai.OpenAIError as error:
            raise self._as_embedding_error(error, attempts=self.max_attempts) from error

    def _log_retry(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        sleep = state.next_action.sleep if state.next_action else 0.0
        logger.info(
            "embedding request failed (%s); retry %d in %.1fs", describe(error), state.attempt_number, sleep
        )

    def _request(self, client: openai.OpenAI, batch: list[str]) -> list[list[float]]:
        options: dict[str, Any] = {"model": self.model, "input": batch, "encoding_format": "float"}
        if self._send_dimensions:
            options["dimensions"] = self.dimensions
        response = client.embeddings.create(**options)
        vectors: list[list[float] | None] = [None] * len(batch)
        for item in response.data:
            if not 0 <= item.index < len(batch):
                raise EmbeddingError(
                    f"the embedding server returned an item for input {item.index} of {len(batch)}"
                )
            vectors[item.index] = list(item.embedding)
        missing = [i for i, vector in enumerate(vectors) if vector is None]
        if missing:
            raise EmbeddingError(f"the embedding server returned no vector for inputs {missing[:5]}")
        for vector in vectors:
            if vector is not None and len(vector) != self.dimensions:
                raise EmbeddingError(
                    f"model {self.model!r} returned {len(vector)}-dimensional vectors, "
                    f"expected {self.dimensions}; pass --embedding-dimensions {len(vector)}"
                )
        return [vector for vector in vectors if vector is not None]

    def _as_embedding_error(self, error: BaseException, attempts: int) -> EmbeddingError:
        where = redact(self.base_url) if self.base_url else "the OpenAI API"
        if isinstance(error, EmbeddingError):
            return error
        if isinstance(error, openai.AuthenticationError):
            return EmbeddingError(f"{where} rejected the API key (HTTP 401); check OPENAI_API_KEY")
        if isinstance(error, openai.PermissionDeniedError):
            return EmbeddingError(
                f"{where} refused access to model {self.model!r} (HTTP 403); check the key's project"
            )
        if isinstance(error, openai.NotFoundError):
            return EmbeddingError(
                f"{where} has no model {self.model!r} (HTTP 404); check --embedding-model/base URL"
            )
        if is_retryable(error):
            tries = f"after {attempts} attempts" if attempts > 1 else "in one attempt"
            return EmbeddingError(f"embedding request to {where} failed {tries}: {describe(error)}")
        return EmbeddingError(f"{where} refused the embedding request: {describe(error)}")


register_provider(
    "openai", OpenAIProvider.create, settings=("model", "dimensions", "batch_size", "concurrency", "base_url")
)
