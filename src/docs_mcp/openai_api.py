"""What every client of an OpenAI-compatible API shares: one retry policy, one way to name an error,
one rule for the key. Used by the embedding provider, by ``fix --llm openai`` and by ``agent-eval``
(whose Messages API client speaks plain httpx2: its errors are judged by the same rules).

One retry layer: the SDK's own retries are off (``max_retries=0``) and tenacity retries 429, 5xx,
timeouts and connection errors with exponential backoff and full jitter, waiting what
``retry-after-ms`` or ``Retry-After`` asks (seconds or an HTTP date), capped. Needs the ``openai``
extra; importing this module imports it.
"""

from __future__ import annotations

import email.utils
import math
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlparse

import httpx2  # the HTTP client openai and the MCP SDK use (a base dependency)
import openai
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from docs_mcp.loopback import is_loopback
from docs_mcp.redact import redact

__all__ = ["PLACEHOLDER_KEY", "RetryPolicy", "api_key", "describe", "is_retryable", "retry_after_seconds"]

# What a server on this machine (Ollama, vLLM, LiteLLM) is sent when no key is given: it needs none.
PLACEHOLDER_KEY = "no-key-needed-for-a-local-server"


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry a request that may succeed later."""

    max_attempts: int = 6
    backoff_base: float = 1.0  # seconds; full jitter in [0, base * 2^(attempt - 1)]
    max_wait: float = 60.0  # caps both the backoff and what the server asks for

    def retrying(self, before_sleep: Callable[[RetryCallState], None] | None = None) -> Retrying:
        """A tenacity ``Retrying`` that re-raises the last error once attempts run out."""
        return Retrying(
            retry=retry_if_exception(is_retryable),
            stop=stop_after_attempt(self.max_attempts),
            wait=self.wait,
            before_sleep=before_sleep,
            reraise=True,
        )

    def wait(self, state: RetryCallState) -> float:
        """Seconds before the next attempt: what the server asked, else the jittered backoff."""
        error = state.outcome.exception() if state.outcome else None
        asked = retry_after_seconds(error)
        if asked is not None:
            return min(max(asked, 0.0), self.max_wait)
        return random.uniform(0, min(self.backoff_base * 2 ** (state.attempt_number - 1), self.max_wait))


def is_retryable(error: BaseException) -> bool:
    """A connection failure or timeout, a 429 or a 5xx (from the openai SDK or from plain httpx2)."""
    if isinstance(error, openai.APIConnectionError | httpx2.TransportError):  # includes timeouts
        return True
    if isinstance(error, httpx2.HTTPStatusError):
        status = error.response.status_code
        return status == 429 or status >= 500
    return isinstance(error, openai.APIStatusError) and (error.status_code == 429 or error.status_code >= 500)


def retry_after_seconds(error: BaseException | None) -> float | None:
    """What the server asked us to wait, from ``retry-after-ms`` or ``Retry-After`` (seconds or a date)."""
    if not isinstance(error, openai.APIStatusError | httpx2.HTTPStatusError):
        return None
    headers = error.response.headers
    try:
        if "retry-after-ms" in headers:
            seconds = float(headers["retry-after-ms"]) / 1000
        elif (value := headers.get("retry-after")) is None:
            return None
        else:
            try:
                seconds = float(value)
            except ValueError:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError):
        return None
    # float() takes "nan" and "inf": a nan wait survived min()/max() and made time.sleep raise.
    return seconds if math.isfinite(seconds) else None


def describe(error: BaseException | None) -> str:
    """The error in a few words, credentials in URLs redacted."""
    if isinstance(error, openai.APITimeoutError):
        return "timed out"
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {redact(error.message)}"
    if isinstance(error, openai.APIConnectionError):
        return f"connection failed ({redact(str(error.__cause__ or error))})"
    return redact(str(error))


def api_key(given: str | None, base_url: str | None) -> str | None:
    """The key to send: ``given``, else ``OPENAI_API_KEY``, else a placeholder for a server on this
    machine; None when there is none (the caller says what to set)."""
    key = given or os.environ.get("OPENAI_API_KEY")
    if key:
        return key
    if base_url is not None and is_loopback(urlparse(base_url).hostname):
        return PLACEHOLDER_KEY
    return None
