"""Literal values in a JavaScript/TypeScript config (``docusaurus.config.js``, ``astro.config.mjs``,
``.vitepress/config.ts``, ``theme.config.js``), found by scanning its text: never run.

A key's value is taken when it is a string literal, or an identifier bound by ``const x = '...'`` in
the same file; the key nearest the top of the object nesting wins (a navbar's ``title`` never names
the site).
"""

from __future__ import annotations

import re

__all__ = ["brace_depths", "js_values", "string_list"]

_STRING = r"(['\"`])((?:(?!\2)[^\\\n$]|\\.)*)\2"


def js_values(text: str, keys: tuple[str, ...], nested: tuple[str, ...] = ()) -> dict[str, str]:
    """The literal value of each of ``keys`` at the shallowest depth it appears (``nested`` keys:
    the first one at any depth, as if at the top)."""
    pattern = re.compile(rf"\b({'|'.join(map(re.escape, keys))})\s*:\s*(?:{_STRING}|([A-Za-z_$][\w$]*)\b)")
    constants = _constants(text)
    depths = brace_depths(text)
    found: dict[str, tuple[int, str | None]] = {}
    for match in pattern.finditer(text):
        key = match.group(1)
        # An identifier bound elsewhere (an import) is unknown, and still hides deeper keys.
        value = match.group(3) if match.group(2) else constants.get(match.group(4) or "")
        depth = 1 if key in nested else depths[match.start()]
        if depth >= 1 and (key not in found or depth < found[key][0]):
            found[key] = (depth, value)
    return {key: value for key, (_, value) in found.items() if value is not None}


def _constants(text: str) -> dict[str, str]:
    return {
        m.group(1): m.group(3)
        for m in re.finditer(rf"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*{_STRING}", text)
    }


def string_list(text: str, key: str) -> list[str]:
    """The string literals of the array literal after ``key:`` (``srcExclude: ['a', "b"]``)."""
    match = re.search(rf"\b{re.escape(key)}\s*:\s*\[([^\]]*)\]", text)
    items = r"(['\"`])((?:(?!\1)[^\\\n]|\\.)*)\1"
    return [m.group(2) for m in re.finditer(items, match.group(1))] if match else []


def brace_depths(text: str) -> list[int]:
    """The ``{``/``[`` nesting depth at every character of JavaScript ``text``, strings and comments
    skipped (a rough lexer: good for configs, which are object literals)."""
    depths = [0] * (len(text) + 1)
    depth = 0
    index = 0
    quote = ""
    while index < len(text):
        char = text[index]
        depths[index] = depth
        if quote:
            if char == "\\":
                depths[index + 1 : index + 2] = [depth]
                index += 1
            elif char == quote:
                quote = ""
        elif text.startswith("//", index):
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
            depths[index:end] = [depth] * (end - index)
            index = end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = len(text) if end < 0 else end + 2
            depths[index:end] = [depth] * (end - index)
            index = end
            continue
        elif char in "'\"`":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth = max(0, depth - 1)
        index += 1
    return depths
