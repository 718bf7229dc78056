"""The optional model that helps ``fix`` bootstrap: one chat completion through the OpenAI SDK.

Needs the ``openai`` extra (imported only here, only on this path: the server never sees it).
Retries follow the policy every OpenAI-compatible client here shares (``docs_mcp.openai_api``). The
answer is structured output (``llm_answer.py``); any failure (refused, retries exhausted, not JSON,
breaking the schema) falls back to the heuristics with a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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

DEFAULT_MODEL = "gpt-4o-mini"
# One chat completion is the whole run: fewer and shorter retries than a build's embedding batches.
MAX_ATTEMPTS = 4
TIMEOUT = 120.0


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

        from docs_mcp.openai_api import RetryPolicy, describe
        from docs_mcp.openai_api import api_key as resolve_key
    except ImportError as error:
        missing = missing_extra(error, "`docs-mcp fix --llm openai`")
        if missing is None:
            raise
        raise missing from error
    key = resolve_key(api_key, base_url)
    if key is None:
        raise ConfigError(
            "fix --llm openai needs an API key: set OPENAI_API_KEY (or --base-url a local server)"
        )
    client = openai.OpenAI(api_key=key, base_url=base_url, timeout=TIMEOUT, max_retries=0)
    name = model or DEFAULT_MODEL
    messages = [
        {"role": "system", "content": INSTRUCTIONS},
        {"role": "user", "content": compact_outline(outlines, layout, drafts)},
    ]
    retrying = RetryPolicy(max_attempts=MAX_ATTEMPTS, backoff_base=1.0, max_wait=30.0).retrying()
    try:
        content = retrying(_complete, client, name, messages)
        proposed = parse_answer(content, drafts)
    except openai.OpenAIError as error:
        return list(drafts), [
            f"the model gave no answer ({describe(error)}); the proposal uses the heuristics"
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
