"""Seams inside blocks: the atoms a section over its size budget is packed from (``packing.py``).

A block that fits the budget is one atom. A block that does not is cut at its natural seams, and
each piece carries the context that makes it render on its own:

- lists between items; an item too big between its blocks (nested lists between their items), and
  every piece after the first repeats the item's marker line (the parent item's, for nested ones);
- tables between rows; every piece after the first repeats the header and delimiter rows;
- fenced code between lines, at blank lines first; every piece re-opens the fence with its info
  string, and every piece but the last closes it;
- blockquotes between their blocks (every line keeps its ``>``);
- paragraphs and other text between lines and sentences;
- last resort, a single line too long for the budget between words, then characters
  (``text_split.py``).

Context is never owned: only a part's own source counts for the "every character once" rule.
Seam strengths make the packer prefer the outermost seams: between top-level blocks, then between
items of a top-level list, then nested items, then lines, sentences, words and characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it.tree import SyntaxTreeNode

from docs_mcp.chunk.packing import GLUE, Atom
from docs_mcp.chunk.text_split import ends_sentence, split_line
from docs_mcp.parse.markdown import block_tokens

TOP = 100  # the seam between top-level blocks
_STEP = 10  # each level of nesting is a weaker seam
_MIN_LEVEL = 10
_PROSE = frozenset({"paragraph", "heading", "html_block"})
_LEAVES = frozenset({*_PROSE, "code_block", "hr"})
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_CONTAINER_PREFIX = re.compile(r"[ \t]*(?:>[ \t]?)*")
_LINE_PREFIX = re.compile(r"[ \t]*(?:>[ \t]?)*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)?")


def _level(depth: int) -> int:
    return max(_MIN_LEVEL, TOP - _STEP * depth)


@dataclass(frozen=True)
class Span:
    """Lines ``first..last`` (1-based, inclusive) of the document; ``glue_after``: never cut right
    after them (a heading, a hint comment)."""

    first: int
    last: int
    glue_after: bool = False
    kind: str = ""  # markdown-it's block type (``table``, ``fence``, ``bullet_list``, ...)


Lead = tuple[str, int, bool]  # the first atom's (before, strength, inside)
_TOP_LEAD: Lead = ("", TOP, False)


class BlockSplitter:
    """Atoms for the lines of one section, given the document's lines and line start offsets."""

    def __init__(self, lines: Sequence[str], offsets: Sequence[int], budget: int) -> None:
        self.lines = lines
        self.offsets = offsets
        self.text = "\n".join(lines)
        self.budget = budget

    def section_atoms(self, blocks: Sequence[Span], first: int, last: int) -> list[Atom]:
        """Atoms covering every non-blank line of ``first..last``: each top-level block one atom if
        it fits, else its pieces; lines in no block (link reference definitions) one atom each. The
        atom after a ``glue_after`` block is glued to it."""
        atoms: list[Atom] = []
        line = first
        glue_at: int | None = None
        for block in blocks:
            atoms.extend(self._lines(line, block.first - 1, _TOP_LEAD, "", "", 0, prose=True))
            atoms.extend(self._block(block))
            if glue_at is not None and glue_at < len(atoms):
                atoms[glue_at] = _with_strength(atoms[glue_at], GLUE)
            glue_at = len(atoms) if block.glue_after else None
            line = block.last + 1
        atoms.extend(self._lines(line, last, _TOP_LEAD, "", "", 0, prose=True))
        if glue_at is not None and glue_at < len(atoms):
            atoms[glue_at] = _with_strength(atoms[glue_at], GLUE)
        return atoms

    # -- blocks ---------------------------------------------------------------------------------

    def _block(self, block: Span) -> list[Atom]:
        last = self._trim(block.first, block.last)
        if last < block.first:
            return []
        start, end = self.offsets[block.first - 1], self._line_end(last)
        if end - start <= self.budget:
            return [Atom(start, end, TOP)]
        # Tables, fences and text need only their lines; lists and quotes are parsed again, alone.
        if block.kind == "table":
            return self._table(block.first, last, _TOP_LEAD, "", 1)
        if block.kind == "fence" and (markup := _FENCE.match(self.lines[block.first - 1])):
            return self._fence(block.first, last, markup.group(1), _TOP_LEAD, "", 1)
        if block.kind in _LEAVES:
            return self._lines(block.first, last, _TOP_LEAD, "", "", 1, prose=block.kind in _PROSE)
        source = "\n".join(self.lines[block.first - 1 : last])
        root = SyntaxTreeNode(block_tokens(source))
        return self._children(root.children, block.first, last, block.first - 1, _TOP_LEAD, "", 0)

    def _node(self, node: SyntaxTreeNode, shift: int, lead: Lead, ctx: str, depth: int) -> list[Atom]:
        """Atoms of ``node`` (its lines counted from ``shift``); ``lead``: its first atom's before,
        strength and inside flag; ``ctx``: the context before any later atom."""
        assert node.map is not None
        first = node.map[0] + 1 + shift
        last = self._trim(first, node.map[1] + shift)
        if last < first:
            return []
        before, strength, inside = lead
        start, end = self.offsets[first - 1], self._line_end(last)
        if len(before) + end - start <= self.budget:
            return [Atom(start, end, strength, before, "", inside)]
        kind = node.type
        if kind in ("bullet_list", "ordered_list", "blockquote"):
            return self._children(node.children, first, last, shift, lead, ctx, depth)
        if kind == "list_item":
            marker = self._marker_context(first)
            return self._children(node.children, first, last, shift, lead, ctx + marker, depth)
        if kind == "table":
            return self._table(first, last, lead, ctx, depth)
        if kind == "fence":
            return self._fence(first, last, node.markup, lead, ctx, depth)
        return self._lines(first, last, lead, ctx, "", depth, prose=kind in _PROSE)

    def _children(
        self,
        children: Sequence[SyntaxTreeNode],
        first: int,
        last: int,
        shift: int,
        lead: Lead,
        ctx: str,
        depth: int,
    ) -> list[Atom]:
        """The children's atoms in order; lines no child covers become atoms of their own."""
        atoms: list[Atom] = []
        line = first
        later: Lead = (ctx, _level(depth + 1), True)
        for child in children:
            if child.map is None:
                continue
            child_first = child.map[0] + 1 + shift
            atoms.extend(self._lines(line, child_first - 1, later if atoms else lead, ctx, "", depth, True))
            atoms.extend(self._node(child, shift, later if atoms else lead, ctx, depth + 1))
            line = max(line, child.map[1] + shift + 1)
        atoms.extend(self._lines(line, last, later if atoms else lead, ctx, "", depth, prose=True))
        return atoms

    def _table(self, first: int, last: int, lead: Lead, ctx: str, depth: int) -> list[Atom]:
        """Header and delimiter rows stay with the first body row; later rows repeat them."""
        delimiter = min(first + 1, last)
        atoms = self._lines(first, delimiter, lead, ctx, "", depth, prose=False)
        header = ctx + "\n".join(self.lines[first - 1 : delimiter]) + "\n"
        atoms.extend(self._lines(delimiter + 1, last, (header, GLUE, True), header, "", depth, prose=False))
        glued = {self.offsets[delimiter - 1]} if delimiter > first else set()
        return [_with_strength(a, GLUE) if a.start in glued else a for a in atoms]

    def _fence(self, first: int, last: int, markup: str, lead: Lead, ctx: str, depth: int) -> list[Atom]:
        """Every piece re-opens the fence (opener line, info string) and all but the last close it."""
        opener = self.lines[first - 1]
        prefix = _container_prefix(opener)
        closing = self.lines[last - 1][len(prefix) :].strip()
        closed = last > first and closing.startswith(markup) and set(closing) == {markup[0]}
        reopen, reclose = ctx + opener + "\n", "\n" + prefix + markup
        before, strength, inside = lead
        atoms = [Atom(self.offsets[first - 1], self._line_end(first), strength, before, reclose, inside)]
        if len(before) + len(opener) + len(reclose) > self.budget:
            atoms = self._lines(first, first, lead, ctx, "", depth, prose=False)
        body_last = last - 1 if closed else last
        atoms.extend(self._lines(first + 1, body_last, (reopen, GLUE, True), reopen, reclose, depth, False))
        if closed:
            atoms.extend(self._lines(last, last, (reopen, GLUE, True), reopen, "", depth, prose=False))
        return atoms

    # -- lines ----------------------------------------------------------------------------------

    def _lines(
        self, first: int, last: int, lead: Lead, ctx: str, after: str, depth: int, prose: bool
    ) -> list[Atom]:
        """One atom per non-blank line of ``first..last`` (split further when one does not fit). The
        seam before a line after a blank line is stronger, and in prose one after a sentence's end."""
        atoms: list[Atom] = []
        level = _level(depth + 1)
        blank_before = False
        previous = ""
        for number in range(first, last + 1):
            line = self.lines[number - 1]
            if not line.strip():
                blank_before = True
                continue
            if atoms:
                ends = prose and ends_sentence(previous)
                strength = level - 2 if blank_before else level - (4 if ends else 6)
                before, inside = ctx, True
            else:
                before, strength, inside = lead
            atom = Atom(self.offsets[number - 1], self._line_end(number), strength, before, after, inside)
            if len(before) + atom.end - atom.start + len(after) <= self.budget:
                atoms.append(atom)
            else:
                # A part starting inside this line needs the line's container prefix ("> ", a
                # list marker on an item's first line) to render where the line does.
                prefix = _line_prefix(line) if prose and not atoms else _container_prefix(line)
                atoms.extend(split_line(self.text, atom, before + prefix, self.budget, prose))
            blank_before, previous = False, line
        return atoms

    def _marker_context(self, line: int) -> str:
        """A list item's marker line as context; only the marker itself when the line is long."""
        text = self.lines[line - 1]
        if len(text) > self.budget // 4:
            text = _line_prefix(text).rstrip() or "-"
        return text + "\n"

    def _trim(self, first: int, last: int) -> int:
        last = min(last, len(self.lines))
        while last >= first and not self.lines[last - 1].strip():
            last -= 1
        return last

    def _line_end(self, line: int) -> int:
        return self.offsets[line - 1] + len(self.lines[line - 1])


def _container_prefix(line: str) -> str:
    match = _CONTAINER_PREFIX.match(line)
    return match.group(0) if match else ""


def _line_prefix(line: str) -> str:
    match = _LINE_PREFIX.match(line)
    return match.group(0) if match else ""


def _with_strength(atom: Atom, strength: int) -> Atom:
    return Atom(atom.start, atom.end, strength, atom.before, atom.after, atom.inside)
