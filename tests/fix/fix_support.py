"""Shared checks for fix tests: a docs tree's bytes, and "only manifests, front matter and hint
comments changed, never a byte of prose"."""

from __future__ import annotations

import re
from pathlib import Path

from docs_mcp.parse.markdown import parse

_HINT_LINE = re.compile(r"\s*<!--\s*mcp_\w+.*-->\s*")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` by posix path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def prose(markdown: str) -> list[str]:
    """The lines of a markdown file that are neither front matter, hint comments nor blank."""
    doc = parse(markdown)
    body = doc.lines[doc.body_start - 1 :]
    return [line for line in body if line.strip() and not _HINT_LINE.fullmatch(line)]


def assert_only_metadata_changed(before: dict[str, bytes], after: dict[str, bytes]) -> None:
    """No file removed; markdown keeps every line of prose; anything else changed is a manifest."""
    assert set(before) <= set(after), sorted(set(before) - set(after))
    for path in sorted(set(after)):
        if before.get(path) == after[path]:
            continue
        if path.endswith(".md"):
            assert path in before, f"fix created the markdown file {path}"
            assert prose(before[path].decode()) == prose(after[path].decode()), f"prose of {path} changed"
        else:
            assert path.rpartition("/")[2] == ".docs-mcp.json", f"fix touched {path}"
