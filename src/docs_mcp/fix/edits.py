"""The edits ``fix`` makes: to manifests (as JSON values) and to markdown (hint comments, front matter
values). Each returns the reason line of the change, or None when it changed nothing."""

from __future__ import annotations

import json
import re
from typing import Any

from docs_mcp.corpus.docs_manifest import closest_key, is_valid_manifest
from docs_mcp.corpus.globs import glob_matches
from docs_mcp.parse.hints import SECTION_HINT
from docs_mcp.parse.strategy import DEFAULT_MAX_CHUNK_SIZE, Strategy

_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "nan", "inf"}
_ONLY_COMMENT = re.compile(r"\s*<!--.*-->\s*")
_YAML_VALUE = re.compile(r"(?P<key>\s*[\"']?[\w-]+[\"']?\s*:\s*)(?P<value>[^#\n]*?)(?P<rest>\s*(?:#.*)?)")


# -- manifests ------------------------------------------------------------------------------------


def strategy_json(strategy: Strategy) -> dict[str, Any]:
    """``strategy`` as a manifest strategy object (defaults left out)."""
    data: dict[str, Any] = {"chunk_by": strategy.chunk_by}
    if strategy.max_chunk_size != DEFAULT_MAX_CHUNK_SIZE:
        data["max_chunk_size"] = strategy.max_chunk_size
    if strategy.min_chunk_size is not None:
        data["min_chunk_size"] = strategy.min_chunk_size
    if strategy.allow_block_splits:
        data["allow_block_splits"] = True
    return data


def with_key_after(data: dict[str, Any], key: str, value: Any, after: str) -> None:
    """Set ``data[key]``, placing a new key right after ``after`` (or first when ``after`` is absent)."""
    if key in data:
        data[key] = value
        return
    items = list(data.items())
    position = next((n + 1 for n, (name, _) in enumerate(items) if name == after), 0)
    items.insert(position, (key, value))
    data.clear()
    data.update(items)


def file_override(data: dict[str, Any], pattern: str) -> dict[str, Any]:
    """The override for ``pattern`` that wins for it: the last one with exactly that pattern when no
    later override matches it, else a new one at the end."""
    overrides: list[dict[str, Any]] = data.setdefault("overrides", [])
    for index in range(len(overrides) - 1, -1, -1):
        if overrides[index].get("pattern") == pattern:
            later = overrides[index + 1 :]
            if not any(glob_matches(str(o.get("pattern", "")), pattern) for o in later):
                return overrides[index]
            break
    override: dict[str, Any] = {"pattern": pattern}
    overrides.append(override)
    return override


def fix_unknown_key(data: dict[str, Any], where: tuple[str | int, ...], key: str, known: list[str]) -> str:
    """Rename an unknown key to the known key it most likely means (when that key is free and the
    value fits it), else remove it. Returns the reason."""
    parent: Any = data
    for part in where:
        parent = parent[part]
    closest = closest_key(key, known)
    if closest is not None and closest not in parent:
        renamed = {(closest if name == key else name): item for name, item in parent.items()}
        trial = json.loads(json.dumps(data))
        target = trial
        for part in where:
            target = target[part]
        target.clear()
        target.update(renamed)
        if is_valid_manifest(trial):
            parent.clear()
            parent.update(renamed)
            return f"rename {key!r} to {closest!r}, the key docs-mcp reads (unknown keys are ignored)"
    del parent[key]
    return f"remove the unknown key {key!r}: docs-mcp ignores it"


# -- markdown -------------------------------------------------------------------------------------


Edit = tuple[int, int, list[str]]  # replace lines first..last by these (last = first - 1: insert)


def section_hint(lines: list[str], heading_line: int, chunk_by: str) -> Edit:
    """A ``mcp_section_hint`` comment directly before the heading at ``heading_line`` (with a blank
    line before it when the line above is not blank)."""
    hint = f"<!-- {SECTION_HINT}: {json.dumps({'chunk_by': chunk_by})} -->"
    above = lines[heading_line - 2] if heading_line >= 2 else ""
    return (heading_line, heading_line - 1, ([""] if above.strip() else []) + [hint, ""])


def remove_comment(lines: list[str], line: int) -> Edit | None:
    """Remove line ``line`` when it holds nothing but an HTML comment (and the blank line after it
    when the line before is blank too); None when the comment shares its line."""
    if not 1 <= line <= len(lines) or not _ONLY_COMMENT.fullmatch(lines[line - 1]):
        return None
    last = line
    if line < len(lines) and not lines[line].strip() and (line == 1 or not lines[line - 2].strip()):
        last = line + 1
    return (line, last, [])


def front_matter_value(lines: list[str], line: int, value: str) -> Edit | None:
    """Replace the value of the ``key: value`` front matter line ``line``; None when the line is
    not of that simple form."""
    match = _YAML_VALUE.fullmatch(lines[line - 1]) if 1 <= line <= len(lines) else None
    if match is None or not match.group("value").strip():
        return None
    plain = re.fullmatch(r"[A-Za-z][\w.-]*", value) and value.lower() not in _YAML_WORDS
    return (line, line, [match.group("key") + (value if plain else json.dumps(value)) + match.group("rest")])
