"""What the docs are called, for the server instructions ``fix`` drafts.

In order: the ``--description`` given (so instructions and the index's description agree), the site
config's name (``site_name``, Docusaurus ``title``, Sphinx ``project``), the H1 of the root index page
(``index.md``/``index.mdx``/``README.md``, as markdown ``# Title`` or an HTML ``<h1>``), then the
README's. Never a CONTRIBUTING, changelog, licence or code of conduct page's title: such a page says
how to work on the project, not what its docs cover. None: the layout's heuristics decide.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from pathlib import Path

from docs_mcp.fix.outline import FileOutline

__all__ = ["NOT_A_NAME", "corpus_name"]

_INDEX_PAGES = ("index.md", "index.mdx", "README.md", "readme.md", "intro.md", "intro.mdx")
_README_PAGES = ("README.md", "readme.md", "../README.md")
# Pages whose title never names the docs (matched against the file name, case-insensitively).
NOT_A_NAME = re.compile(
    r"(?i)(contributing|changelog|changes|history|release[-_ ]notes|code[-_ ]of[-_ ]conduct"
    r"|licen[cs]e|security)"
)
_HTML_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]+>")
_ATX_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")
_MAX_NAME = 80


def corpus_name(
    root: Path, outlines: Sequence[FileOutline], site_name: str | None, description: str | None
) -> str | None:
    """The corpus's name, or None when nothing names it (see the module docstring). Raises nothing."""
    for given in (description, site_name):
        if given and given.strip():
            return given.strip().rstrip(".")
    by_path = {outline.path: outline for outline in outlines}
    for name in (*_INDEX_PAGES, *_README_PAGES):
        title = _page_h1(root / name) if (name in by_path or name.startswith("..")) else None
        if title:
            return title
    return None


def _page_h1(path: Path) -> str | None:
    if NOT_A_NAME.search(path.name):
        return None
    try:
        text = path.read_text(encoding="utf-8")[:200_000]
    except (OSError, UnicodeDecodeError):
        return None
    body = _without_code(text)
    found = [m for m in (_ATX_H1.search(body), _HTML_H1.search(body)) if m is not None]
    if not found:
        return None
    first = min(found, key=lambda m: m.start())
    title = html.unescape(_TAG.sub("", first.group(1)))
    title = _ATTRIBUTES.sub("", " ".join(title.replace("`", "").split()))
    return title[:_MAX_NAME] or None


def _without_code(text: str) -> str:
    """``text`` with fenced code blocks blanked (a ``# comment`` there is no heading)."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        stripped = line.lstrip()
        marker = stripped[:3]
        if not fence and marker in ("```", "~~~"):
            fence = marker
            out.append("")
        elif fence and stripped.startswith(fence):
            fence = ""
            out.append("")
        else:
            out.append("" if fence else line)
    return "\n".join(out)
