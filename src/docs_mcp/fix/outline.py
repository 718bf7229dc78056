"""Outline scanning: what ``fix`` knows about each markdown file without chunking it.

Heading tree, the sizes its chunks would have at each heading level, its biggest block, the
languages of its code fences, its title and a sample line: enough to choose strategies and infer
facets, and small enough to send to a model (never whole files).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from docs_mcp.fix.generator_syntax import syntax_sign
from docs_mcp.parse.markdown import Block, parse

_FENCE_INFO = re.compile(r"[ \t]*(?:`{3,}|~{3,})[ \t]*([^\s`{]+)")
# An API reference stub (mkdocstrings / mkautodoc ``::: package.member``; a container's ``::: tip``
# names no dotted path): the page is generated from source.
_API_STUB = re.compile(r"^:::[ \t]+\w+(?:\.\w+)+[ \t]*$")
SAMPLE_CHARS = 160


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str


@dataclass(frozen=True)
class FileOutline:
    """One markdown file as ``fix`` sees it."""

    path: str  # posix, relative to the docs root
    size: int  # characters
    headings: tuple[Heading, ...]
    chunk_sizes: dict[int, tuple[int, ...]]  # split level (0: whole file, 1-6) -> estimated chunk sizes
    largest_block: int  # characters of the biggest top-level block
    largest_block_kind: str
    fence_languages: Counter[str] = field(default_factory=Counter)
    title: str = ""
    sample: str = ""  # the first line of prose, cut to SAMPLE_CHARS
    generator_syntax: str = ""  # the first site generator syntax outside code ("line N: ..."), if any
    api_stubs: int = 0  # ``::: package.member`` lines: the page holds an API reference read from source

    @property
    def folder(self) -> str:
        parent = str(PurePosixPath(self.path).parent)
        return "" if parent == "." else parent


def scan(path: str, source: str) -> FileOutline:
    """The outline of one file (``source``: its decoded text). Raises nothing."""
    doc = parse(source)
    starts = [0]
    for line in doc.lines:
        starts.append(starts[-1] + len(line) + 1)
    body_start = starts[doc.body_start - 1]
    end = starts[-1] - 1
    headings = tuple(Heading(b.start_line, b.level, b.text) for b in doc.blocks if b.is_heading)
    sizes: dict[int, tuple[int, ...]] = {0: (end - body_start,)}
    for level in range(1, 7):
        cuts = [starts[h.line - 1] for h in headings if h.level <= level]
        sizes[level] = _segments(body_start, end, cuts)
    largest = max(doc.blocks, key=lambda b: starts[b.end_line] - starts[b.start_line - 1], default=None)
    return FileOutline(
        path=path,
        size=len(source),
        headings=headings,
        chunk_sizes=sizes,
        largest_block=starts[largest.end_line] - starts[largest.start_line - 1] - 1 if largest else 0,
        largest_block_kind=largest.kind if largest else "",
        fence_languages=Counter(_fence_languages(doc.blocks, doc.lines)),
        title=next((h.text for h in headings if h.level == 1), ""),
        sample=_sample(doc.blocks),
        generator_syntax=syntax_sign("\n".join(doc.lines), _fenced(doc.lines)),
        api_stubs=sum(
            1
            for block in doc.blocks
            if block.kind == "paragraph"
            for line in doc.lines[block.start_line - 1 : block.end_line]
            if _API_STUB.match(line)
        ),
    )


def _segments(start: int, end: int, cuts: list[int]) -> tuple[int, ...]:
    """Sizes of ``[start, end)`` cut at ``cuts``; an empty leading piece is no chunk."""
    bounds = [start, *(cut for cut in cuts if cut > start), end]
    return tuple(b - a for a, b in itertools.pairwise(bounds) if b > a)


def _fenced(lines: Sequence[str]) -> list[tuple[int, int]]:
    """The 1-based line ranges of fenced code bodies, nested ones (in list items) included."""
    ranges: list[tuple[int, int]] = []
    fence, opened = "", 0
    for number, line in enumerate(lines, 1):
        stripped = line.lstrip()
        if not fence and stripped.startswith(("```", "~~~")):
            fence, opened = stripped[:3], number
        elif fence and stripped.startswith(fence):
            ranges.append((opened + 1, number))
            fence = ""
    if fence:
        ranges.append((opened + 1, len(lines)))
    return ranges


def _fence_languages(blocks: Iterable[Block], lines: Sequence[str]) -> Iterable[str]:
    for block in blocks:
        if block.kind == "fence":
            match = _FENCE_INFO.match(lines[block.start_line - 1])
            if match:
                yield match.group(1).lower()


def _sample(blocks: Iterable[Block]) -> str:
    text = next((b.text for b in blocks if b.kind == "paragraph" and b.text), "")
    first = text.split("\n", 1)[0]
    return first if len(first) <= SAMPLE_CHARS else first[: SAMPLE_CHARS - 1] + "…"
