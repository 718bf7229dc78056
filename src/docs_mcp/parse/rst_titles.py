"""The titles a Sphinx site's cross-references show: ``:ref:`label``` and ``:doc:`page``` without
an explicit text show the title of the section the label stands before, or of the page.

Read from the pages' text with a line scan (the first section title of each page, and each
``.. _label:`` target followed by a title), before any page is parsed, so a reference to a label on
another page reads as the rendered site does ("see The Application Context", not "appcontext").
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

__all__ = ["RstTitles", "page_titles"]

_LABEL = re.compile(r"^\.\.\s+_([^:`]+|`[^`]+`):\s*$")
_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+_.:<>!$%&,;?@\\|/])\1+\s*$")


@dataclass
class RstTitles:
    """``labels``: label (lower case) -> section title; ``pages``: page path without suffix -> title."""

    labels: dict[str, str] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)

    def add(self, path: str, text: str) -> None:
        """Take the titles of the page at ``path`` (relative to the docs folder)."""
        title, labels = page_titles(text)
        if title:
            self.pages[posixpath.splitext(path)[0]] = title
        self.labels.update(labels)

    def label(self, label: str) -> str | None:
        return self.labels.get(label.strip().lower())

    def page(self, target: str, from_page: str) -> str | None:
        """The title of the page ``:doc:`target``` names from ``from_page`` (``/x`` from the root)."""
        base = "" if target.startswith("/") else posixpath.dirname(from_page)
        path = posixpath.normpath(posixpath.join(base, target.lstrip("/")))
        return self.pages.get(posixpath.splitext(path)[0]) or self.pages.get(path)


def page_titles(text: str) -> tuple[str | None, dict[str, str]]:
    """The first section title of a page and the title each ``.. _label:`` stands before."""
    lines = text.replace("\r\n", "\n").split("\n")
    first: str | None = None
    labels: dict[str, str] = {}
    pending: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        label = _LABEL.match(line)
        title = _title_at(lines, index)
        if label is not None:
            pending.append(label.group(1).strip("`").strip().lower())
        elif title is not None:
            first = first or title
            labels.update(dict.fromkeys(pending, title))
            pending = []
            index += 1
        elif line.strip():
            pending = []
        index += 1
    return first, labels


def _title_at(lines: list[str], index: int) -> str | None:
    """The title at ``lines[index]`` when it is underlined (an overline above it is allowed)."""
    line = lines[index].rstrip()
    if not line.strip() or line[0].isspace() or _UNDERLINE.match(line) or index + 1 >= len(lines):
        return None
    under = lines[index + 1].rstrip()
    if _UNDERLINE.match(under) and len(under) >= len(line.strip()):
        return " ".join(line.split())
    return None
