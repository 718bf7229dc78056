"""Prompt templates kept beside the docs: the one model the corpus checks, the index stores and the
server fills in (a top-level module, like ``limits``: shared by stages that may not import each other).

A template is a ``*.template.md`` file of the docs folder (read and checked by
:mod:`docs_mcp.corpus.prompts`): front matter naming the prompt, describing it and its arguments,
and a markdown body in which ``{{name}}`` stands for the argument ``name``. ``build`` stores the
templates in the index manifest (an optional key: an index without it has no prompts), and
``serve`` offers them as MCP prompts.

Filling in is plain substitution, no template language: a placeholder of an argument given is
replaced by its value, one of an optional argument not given by nothing. Values are inserted as they
are, never read again for placeholders.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PLACEHOLDER", "PROMPT_NAME", "PromptArgument", "PromptTemplate", "fill"]

# A prompt's or argument's name: what clients show as a slash command and send back.
PROMPT_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_-]+)\s*\}\}")


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptTemplate:
    """One prompt: its ``name``, ``description``, ``arguments``, ``body`` and the ``file`` it came from."""

    name: str
    description: str
    body: str
    file: str
    arguments: tuple[PromptArgument, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "file": self.file,
            "arguments": [
                {"name": a.name, "description": a.description, "required": a.required} for a in self.arguments
            ],
            "body": self.body,
        }

    @classmethod
    def from_dict(cls, data: object) -> PromptTemplate:
        """Raises ``TypeError`` when ``data`` is not the shape ``to_dict`` writes."""
        if not isinstance(data, Mapping):
            raise TypeError("a prompt is not an object")
        name, description, body, file = (data.get(k) for k in ("name", "description", "body", "file"))
        arguments = data.get("arguments", [])
        if not all(isinstance(v, str) for v in (name, description, body, file)) or not isinstance(
            arguments, list
        ):
            raise TypeError("a prompt needs text name, description, body and file, and a list of arguments")
        parsed = []
        for argument in arguments:
            if not isinstance(argument, Mapping) or not isinstance(argument.get("name"), str):
                raise TypeError(f"prompt {name!r} has an argument without a name")
            parsed.append(
                PromptArgument(
                    str(argument["name"]),
                    str(argument.get("description") or ""),
                    argument.get("required") is True,
                )
            )
        return cls(str(name), str(description), str(body), str(file), tuple(parsed))

    def fill(self, values: Mapping[str, str]) -> str:
        """The body with each placeholder replaced (see :func:`fill`)."""
        return fill(self.body, values)


def filled_size(body: str, values: Mapping[str, str]) -> int:
    """The UTF-8 size :func:`fill` would return, counted without building it (a placeholder
    repeated 40,000 times times a long argument is a size to refuse, not a string to make)."""
    size = len(body.encode())
    value_sizes = {name: len(value.encode()) for name, value in values.items()}
    for match in PLACEHOLDER.finditer(body):
        size += value_sizes.get(match[1], 0) - len(match[0].encode())
    return size


def fill(body: str, values: Mapping[str, str]) -> str:
    """``body`` with ``{{name}}`` replaced by ``values[name]`` (nothing when not given), in one pass."""
    return PLACEHOLDER.sub(lambda match: values.get(match[1], ""), body)
