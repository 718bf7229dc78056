"""A reStructuredText page -> the markdown it reads as, read with docutils (the field's own parser).

``read_rst`` parses the page with docutils' reStructuredText parser (Sphinx's directives and roles
given generic handlers first: ``rst_directives.py``; includes and autodoc: ``rst_sources.py``),
applies the substitution transform, and writes the tree out as markdown lines, each mapped to the
page line it comes from (``rst_markdown.py``). The result is a ``Normalised`` like a markdown page
of a site gets (``site_syntax.py``), so chunking, line ranges and URLs work unchanged: sections are
headings with the same id scheme, ``Normalised.origins`` maps lines back to the page.

docutils never writes to stderr here and never halts: its messages are kept in the tree, and those
of level warning and above become findings (``rst-markup``) with the page line. Anything docutils
raises on hostile input becomes a finding too, and the page is then indexed as plain text.
File insertion and ``raw`` are off in docutils' own settings: includes go through the caller's
reader only (confined to the repository folder), and raw HTML is never read.
"""

from __future__ import annotations

import io
from functools import lru_cache
from typing import Any

from docutils import nodes
from docutils.frontend import get_default_settings
from docutils.parsers.rst import Parser
from docutils.transforms.references import Substitutions
from docutils.utils import new_document

from docs_mcp.parse.api_stubs import one_unresolved_note
from docs_mcp.parse.markdown import normalise
from docs_mcp.parse.rst_context import ApiLookup, RstContext, reading
from docs_mcp.parse.rst_directives import register_names
from docs_mcp.parse.rst_markdown import write_markdown
from docs_mcp.parse.rst_titles import RstTitles
from docs_mcp.parse.site_include import IncludeReader
from docs_mcp.parse.site_syntax import Normalised, SyntaxNote

__all__ = ["RST_MARKUP_RULE", "read_rst"]

RST_MARKUP_RULE = "rst-markup"
_WARNING = 2  # docutils' message levels: 1 info, 2 warning, 3 error, 4 severe


@lru_cache(maxsize=1)
def _parser() -> Parser:
    return Parser()


def _settings() -> Any:
    settings = get_default_settings(Parser)
    settings.report_level = 5  # nothing is written anywhere: messages stay in the tree
    settings.halt_level = 5  # and never stop the parse
    settings.warning_stream = io.StringIO()
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    settings.syntax_highlight = "none"
    settings.character_level_inline_markup = False
    settings.traceback = True  # exceptions reach read_rst, which reports them
    settings.input_encoding = "utf-8"
    settings.tab_width = 8
    return settings


def read_rst(
    source: str,
    path: str,
    read_include: IncludeReader | None = None,
    api: ApiLookup | None = None,
    titles: RstTitles | None = None,
) -> Normalised:
    """The page ``source`` (at ``path``, relative to the docs folder) as markdown, with its findings
    and the page line of every output line. ``read_include(target, including_page)`` gives an
    included file's text; ``api`` resolves autodoc directives; ``titles`` (of the site's pages and
    labels) are what ``:ref:`` and ``:doc:`` show. Raises nothing."""
    text = normalise(source)
    ctx = RstContext(path, read_include, api, titles or RstTitles())
    if titles is None:
        ctx.titles.add(path, text)  # the page's own labels at least
    try:
        with reading(ctx):
            register_names(text)
            document = new_document(path, _settings())
            _parser().parse(text, document)
            _substitute(document)
            written = write_markdown(document, path, ctx.include_lines)
    except Exception as error:
        return _as_plain_text(text, ctx, error)
    notes = one_unresolved_note([*ctx.notes, *_messages(document, path, ctx.include_lines)])
    lines = written.lines
    result = Normalised(
        "\n".join(line for line, _ in lines),
        sorted(notes, key=lambda note: note.line),
        written.heading_ids,
        [max(1, origin) for _, origin in lines],
        ctx.api_missing,
    )
    return result


def _substitute(document: nodes.document) -> None:
    """``|name|`` replaced by its definition (the only transform applied: the others resolve
    references and build the HTML, which the markdown does not need)."""
    document.transformer.add_transform(Substitutions)
    document.transformer.apply_transforms()


def _messages(document: nodes.document, path: str, include_lines: dict[str, int]) -> list[SyntaxNote]:
    """docutils' warnings and errors, one finding each, on the page's line."""
    notes: list[SyntaxNote] = []
    found = [*document.findall(nodes.system_message), *document.transform_messages]
    for message in found:
        if int(message.get("level", 0)) < _WARNING:
            continue
        source = str(message.get("source") or path)
        line = (
            include_lines.get(source, int(message.get("line") or 0))
            if source != path
            else int(message.get("line") or 0)
        )
        body = " ".join(message.children[0].astext().split()) if message.children else "invalid markup"
        where = "" if source == path else f" (in {source.split('#include-')[0]})"
        notes.append(SyntaxNote(line, RST_MARKUP_RULE, f"reStructuredText: {body}{where}"))
    return notes


def _as_plain_text(text: str, ctx: RstContext, error: Exception) -> Normalised:
    """The page's lines as text, after docutils failed on it: indexed, with a finding."""
    detail = " ".join(str(error).split())[:200] or type(error).__name__
    note = SyntaxNote(
        1, RST_MARKUP_RULE, f"docutils could not read this page ({type(error).__name__}: {detail}); "
        "indexed as plain text, fix its markup"
    )  # fmt: skip
    lines = ["\\" + line.strip() if line.strip() else "" for line in text.split("\n")]
    return Normalised("\n".join(lines), [*ctx.notes, note], {}, None, ctx.api_missing)
