"""The files ``fix`` works on, held in memory: originals, proposed contents and why each changed.

Manifests are edited as JSON values and written in one canonical form (two-space JSON, short
objects on one line); markdown files only ever get line edits: a hint comment inserted or removed,
a front matter value replaced. The overlay feeds ``load_corpus`` so each round of repairs is
checked as if written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from docs_mcp.fix.proposal import FileChange
from docs_mcp.limits import loads_json

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_WIDTH = 100  # JSON objects and arrays this short stay on one line


class Workspace:
    """Proposed contents of files under ``root``; nothing touches the disk."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._original: dict[str, str | None] = {}
        self._current: dict[str, str] = {}
        self._reasons: dict[str, list[str]] = {}

    def read(self, path: str) -> str | None:
        """The file's current (proposed or on-disk) text; None when it does not exist."""
        if path in self._current:
            return self._current[path]
        return self._load(path)

    def _load(self, path: str) -> str | None:
        if path not in self._original:
            file = self.root / path
            # Bytes, so that CRLF line ends survive the round trip.
            self._original[path] = file.read_bytes().decode("utf-8") if file.is_file() else None
        return self._original[path]

    def lines(self, path: str) -> list[str]:
        """The file's current lines without their line ends (as the markdown parser counts them)."""
        text = self.read(path)
        return re.split(r"\r\n|\r|\n", text) if text is not None else []

    def write(self, path: str, text: str, *reasons: str) -> None:
        """Propose ``text`` for ``path``, with one line of reasoning per change."""
        self._load(path)
        self._current[path] = text
        self._reasons.setdefault(path, []).extend(reasons)

    def manifest(self, path: str) -> dict[str, Any] | None:
        """The manifest at ``path`` as a JSON object; None when absent or not an object."""
        text = self.read(path)
        if text is None:
            return None
        try:
            # Depth-bounded like validate's reader: a manifest too deep to read is left as it is.
            data = loads_json(text.removeprefix("\ufeff"))
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def write_manifest(self, path: str, data: dict[str, Any], *reasons: str) -> None:
        """Propose ``data`` for the manifest at ``path``, in the layout of the original when that
        is plain ``json.dumps`` output (so the diff shows only what changed), else canonical."""
        original = self._load(path)
        self.write(path, _same_style(original, data) or render_json(data), *reasons)

    def edit_lines(self, path: str, edits: Iterable[tuple[int, int, list[str]]], reasons: list[str]) -> None:
        """Replace lines ``first..last`` (1-based; ``last = first - 1`` inserts before ``first``) by
        new lines, for every edit (applied bottom-up, so line numbers are those of the current text)."""
        text = self.read(path)
        assert text is not None, path
        lines = _LINE.findall(text)
        newline = next(
            (line[len(line.rstrip("\r\n")) :] for line in lines if line.endswith(("\n", "\r"))), "\n"
        )
        for first, last, new in sorted(edits, key=lambda edit: edit[0], reverse=True):
            if lines and not lines[-1].endswith(("\n", "\r")) and first > len(lines):
                lines[-1] += newline
            lines[first - 1 : last] = [line + newline for line in new]
        self._load(path)
        self._current[path] = "".join(lines)
        self._reasons.setdefault(path, []).extend(reasons)

    def overlay(self) -> dict[str, bytes]:
        """Every proposed file's bytes, for ``load_corpus``."""
        return {path: text.encode("utf-8") for path, text in self._current.items()}

    def changes(self) -> list[FileChange]:
        """The files whose proposed text differs from the original, in path order."""
        return [
            FileChange(path, self._original.get(path), text, tuple(dict.fromkeys(self._reasons[path])))
            for path, text in sorted(self._current.items())
            if text != self._original.get(path)
        ]


def _same_style(original: str | None, data: Any) -> str | None:
    """``data`` as ``json.dumps`` would write it with the options that reproduce ``original``."""
    if original is None:
        return None
    try:
        parsed = loads_json(original.removeprefix("\ufeff"))
    except ValueError:
        return None
    for indent in (2, 4, "\t", None):
        for ascii_only in (False, True):
            text = json.dumps(parsed, indent=indent, ensure_ascii=ascii_only)
            if original.removeprefix("\ufeff").rstrip("\n") == text:
                end = original[len(original.rstrip("\n")) :]
                return json.dumps(data, indent=indent, ensure_ascii=ascii_only) + end
    return None


def render_json(value: Any) -> str:
    """``value`` as two-space JSON with short objects and arrays on one line, and a final newline."""
    return _render(value, 0, top=True) + "\n"


def _render(value: Any, indent: int, top: bool = False) -> str:
    inline = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    if not top and (len(inline) + indent <= _WIDTH or not isinstance(value, dict | list) or not value):
        return inline
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [
            f"{pad}{json.dumps(key, ensure_ascii=False)}: {_render(item, indent + 2)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + _render(item, indent + 2) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
