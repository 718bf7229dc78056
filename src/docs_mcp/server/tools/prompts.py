"""MCP prompts: the docs' prompt templates (``*.template.md``, stored in the index manifest).

``prompts/list`` lists each template with its arguments; ``prompts/get`` checks the arguments
(every required one given, no unknown one) and returns the body filled in as one user message.
A server offers the prompts capability only when its indexes hold templates (see ``app``); a
server of several libraries names each library's prompts ``library.name``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import mcp_types as types
from mcp.shared.exceptions import MCPError

from docs_mcp.prompt_templates import PromptTemplate, filled_size
from docs_mcp.server.tools.budget import BYTES_PER_TOKEN, ENVELOPE_BYTES, MAX_TOKENS_DEFAULT, estimate_tokens

__all__ = ["DocsPrompts", "hub_prompt_name"]


def hub_prompt_name(library: str, name: str) -> str:
    """A library's prompt as the hub lists it (prompt names hold no '.', so this is unambiguous)."""
    return f"{library}.{name}"


@dataclass(frozen=True)
class DocsPrompts:
    """The prompts one server offers, by the name it lists them under."""

    templates: Mapping[str, PromptTemplate]
    max_tokens: int = MAX_TOKENS_DEFAULT  # the server's answer budget: a filled prompt keeps to it

    @classmethod
    def of(cls, templates: Sequence[PromptTemplate], max_tokens: int = MAX_TOKENS_DEFAULT) -> DocsPrompts:
        return cls({template.name: template for template in templates}, max_tokens)

    @property
    def enabled(self) -> bool:
        return bool(self.templates)

    def list(self) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=name,
                    description=template.description,
                    arguments=[
                        types.PromptArgument(
                            name=argument.name,
                            description=argument.description or None,
                            required=argument.required,
                        )
                        for argument in template.arguments
                    ],
                )
                for name, template in sorted(self.templates.items())
            ]
        )

    def get(self, name: str, arguments: Mapping[str, str] | None) -> types.GetPromptResult:
        """The prompt ``name`` filled in with ``arguments``, within ``max_tokens`` (the server's answer
        budget, as every tool answer).

        Raises ``MCPError`` (invalid params) for an unknown prompt, a required argument missing or an
        argument the prompt does not declare (the message names it and what the prompt takes), or a
        filled prompt over the budget (counted before it is made)."""
        template = self.templates.get(name)
        if template is None:
            listed = ", ".join(sorted(self.templates)) or "none"
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt {name!r}; prompts: {listed}.")
        given = dict(arguments or {})
        declared = {argument.name: argument for argument in template.arguments}
        takes = (
            ", ".join(f"{a.name}{' (required)' if a.required else ''}" for a in template.arguments)
            or "no arguments"
        )
        unknown = sorted(set(given) - set(declared))
        missing = [
            a.name for a in template.arguments if a.required and not str(given.get(a.name, "")).strip()
        ]
        if unknown or missing:
            problem = (
                f"argument(s) {', '.join(unknown)} not declared"
                if unknown
                else f"missing {', '.join(missing)}"
            )
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Prompt {name!r}: {problem}; it takes {takes}."
            )
        values = {key: str(value) for key, value in given.items()}
        # The body is JSON-escaped in the answer: up to 2 bytes a character for quotes and newlines.
        size = 2 * filled_size(template.body, values) + ENVELOPE_BYTES
        if size > self.max_tokens * BYTES_PER_TOKEN:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Prompt {name!r} filled in would be about {estimate_tokens(size):,} tokens, over "
                f"this server's answer budget of {self.max_tokens:,}; give shorter arguments.",
            )
        text = template.fill(values)
        return types.GetPromptResult(
            description=template.description,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=text))],
        )
