"""The optional model that helps ``fix`` bootstrap: one chat completion through the OpenAI SDK.

Needs the ``openai`` extra (imported only here, only on this path: the server never sees it). One
retry layer, as in the embedding provider: the SDK's own retries are off and tenacity retries 429,
5xx, timeouts and connection errors with exponential backoff and jitter, waiting what
``Retry-After`` asks (capped). The answer is structured output (``llm_answer.py``); any failure
(refused, retries exhausted, not JSON, breaking the schema) falls back to the heuristics with a note.
"""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlparse

from docs_mcp.errors import ConfigError
from docs_mcp.extras import missing_extra
from docs_mcp.fix.bootstrap import ManifestDraft
from docs_mcp.fix.layout import Layout
from docs_mcp.fix.llm_answer import (
    INSTRUCTIONS,
    answer_schema,
    compact_outline,
    merge,
    parse_answer,
)
from docs_mcp.fix.outline import FileOutline
from docs_mcp.redact import redact

DEFAULT_MODEL = "gpt-4o-mini"
MAX_ATTEMPTS = 4
BACKOFF_BASE = 1.0  # seconds; full jitter in [0, base * 2^attempt]
MAX_RETRY_WAIT = 30.0
TIMEOUT = 120.0
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}


def consult(
    drafts: Sequence[ManifestDraft],
    outlines: Sequence[FileOutline],
    layout: Layout,
    *,
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
) -> tuple[list[ManifestDraft], list[str]]:
    """The drafts merged with the model's proposal, and notes for the user (why the answer was not
    used, when it was not).

    Raises:
        MissingExtra: the openai extra is not installed.
        ConfigError: there is no API key for a remote server.
    """
    try:
        import openai
        import tenacity
    except ImportError as error:
        missing = missing_extra(error, "`docs-mcp fix --llm openai`")
        if missing is None:
            raise
        raise missing from error
    client = openai.OpenAI(api_key=_key(api_key, base_url), base_url=base_url, timeout=TIMEOUT, max_retries=0)
    name = model or DEFAULT_MODEL
    messages = [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": compact_outline(outlines, layout, drafts)},
    ]
    retrying = tenacity.Retrying(
        retry=tenacity.retry_if_exception(_retryable),
        stop=tenacity.stop_after_attempt(MAX_ATTEMPTS),
        wait=_wait,
        reraise=True,
    )
    try:
        content = retrying(_complete, client, name, messages)
        proposed = parse_answer(content, drafts)
    except openai.OpenAIError as error:
        return list(drafts), [
            f"the model gave no answer ({_describe(error)}); the proposal uses the heuristics"
        ]
    except ValueError as error:
        return list(drafts), [f"the model's answer was not used: {error}; the proposal uses the heuristics"]
    return merge(drafts, proposed), [f"{name} helped draft the manifests (its reasons are marked (model))"]


def _complete(client: Any, model: str, messages: list[dict[str, str]]) -> str:
    response = client.chat.completions.create(
        model=model,
        messages=messages,
        temperature=0,
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "docs_mcp_manifests", "schema": answer_schema()},
        },
    )
    content = response.choices[0].message.content if response.choices else None
    if not content:
        raise ValueError("the answer is empty")
    return str(content)


def _key(api_key: str | None, base_url: str | None) -> str:
    key = api_key or os.environ.get("OPENAI_API_KEY")
    if key:
        return key
    if base_url is not None and (urlparse(base_url).hostname or "") in _LOCAL_HOSTS:
        return "no-key-needed-for-a-local-server"
    raise ConfigError("fix --llm openai needs an API key: set OPENAI_API_KEY (or --base-url a local server)")


def _retryable(error: BaseException) -> bool:
    import openai

    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(error, openai.APIStatusError) and (error.status_code == 429 or error.status_code >= 500)


def _wait(state: Any) -> float:
    import openai

    error = state.outcome.exception() if state.outcome else None
    if isinstance(error, openai.APIStatusError):
        headers = error.response.headers
        try:
            if "retry-after-ms" in headers:
                return min(max(float(headers["retry-after-ms"]) / 1000, 0.0), MAX_RETRY_WAIT)
            if "retry-after" in headers:
                return min(max(float(headers["retry-after"]), 0.0), MAX_RETRY_WAIT)
        except ValueError:
            pass
    return random.uniform(0, min(BACKOFF_BASE * 2 ** (state.attempt_number - 1), MAX_RETRY_WAIT))


def _describe(error: BaseException) -> str:
    import openai

    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {redact(error.message)}"
    if isinstance(error, openai.APIConnectionError):
        return f"connection failed ({redact(str(error.__cause__ or error))})"
    return redact(str(error))
