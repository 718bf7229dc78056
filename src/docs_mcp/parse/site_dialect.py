"""What a generator's pages may hold: the syntax families its pages are read with, and its own rules.

The walk in ``site_syntax.py`` knows three families of container syntax, named after the generator
they were first read for: ``mkdocs`` (``!!!`` admonitions, ``===`` tabs, ``///`` blocks, ``:::``
autodoc stubs, snippet includes, code annotations), ``docusaurus`` (``:::note`` containers, JSX
components, MDX partials) and ``sphinx`` (MyST directives and targets). A generator module
(``docs_mcp.corpus.sites``) picks its families and adds what is its own as data: line rules (a
function over a text line's parts outside code spans: Hugo shortcodes, GitBook tags), include rules
(mdBook ``{{#include}}``, VitePress ``<<<``), blocks dropped whole (``<script setup>``) and the API
reference hook for ``::: package.member`` stubs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from docs_mcp.parse.site_include import IncludeRule

__all__ = ["ApiReference", "Dialect", "LineRule"]

# A rewrite of the parts of a text line outside its code spans (a blank result drops the line).
LineRule = Callable[[str], str]
# The markdown an autodoc stub (``::: pkg.mod.Name`` and its option lines) stands for, or None to drop it.
ApiReference = Callable[[str, str], "str | None"]  # (target, option lines) -> markdown


@dataclass(frozen=True)
class Dialect:
    """Which syntax a page may use: ``families`` (empty: the family named ``generator``), and the
    generator's own rules."""

    generator: str  # the generator's name, for messages
    variables: Mapping[str, Any] | None = None  # None: macros are not rendered by the site
    mdx: bool = False  # MDX: import/export lines, ``{/* comments */}``, JSX
    families: frozenset[str] = frozenset()
    jsx: bool = False  # component tags (JSX, Vue) are dropped, their text kept, in any page
    line_rules: tuple[LineRule, ...] = ()
    include_rules: tuple[IncludeRule, ...] = ()
    drop_blocks: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = ()  # (opening, closing) line
    api_reference: ApiReference | None = None  # None: stubs are dropped (and reported as stubs)
    # A rewrite of the whole page before the walk, keeping its line count (Hugo joins the lines of a
    # shortcode written over several).
    prepare: Callable[[str], str] | None = None

    def uses(self, family: str) -> bool:
        """Whether pages of this dialect use the syntax family ``family``."""
        return family in (self.families or frozenset([self.generator]))
