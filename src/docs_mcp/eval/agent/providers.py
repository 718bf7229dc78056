"""Providers by name (``openai``: any chat-completions endpoint; ``anthropic``: the Messages API),
each imported only when chosen."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp.errors import ConfigError
from docs_mcp.eval.agent.conversation import Provider

if TYPE_CHECKING:  # importing it imports openai: only when a provider is made
    from docs_mcp.openai_api import RetryPolicy

__all__ = ["PROVIDERS", "make_provider"]

PROVIDERS = ("openai", "anthropic")


def make_provider(name: str, model: str, base_url: str | None, retry: RetryPolicy | None = None) -> Provider:
    """The provider ``name`` for ``model`` at ``base_url`` (None: the vendor's API).

    Raises ``ConfigError`` for an unknown provider or a missing key.
    """
    if name == "openai":
        from docs_mcp.eval.agent.provider_openai import OpenAIChat

        return OpenAIChat(model, base_url, retry)
    if name == "anthropic":
        from docs_mcp.eval.agent.provider_anthropic import AnthropicMessages

        return AnthropicMessages(model, base_url, retry)
    raise ConfigError(f"unknown provider {name!r}: use {' or '.join(PROVIDERS)}")
