"""A scan for site-generator syntax in chunks: the markers of issue 20, outside fenced code.

Written apart from the normaliser (``docs_mcp.parse.site_syntax``) and the reStructuredText reader
(``docs_mcp.parse.rst``) so that it checks them rather than repeating them: any line of a chunk's
markdown (code fences aside, inline code spans removed) that still holds an admonition, tab, block,
directive, include, macro, attribute list, cross-reference, MyST target or role, or an MDX
import/export line is a leak; for Sphinx, any reStructuredText directive, label target or role, or
mkdocstrings stub (``rst_leaks``).
"""

from __future__ import annotations

import re

MARKERS: dict[str, re.Pattern[str]] = {
    "mkdocs admonition": re.compile(r"^\s*(?:>\s*)*(?:!!!|\?\?\?)\+?\s"),
    "colon directive": re.compile(r"^\s*(?:>\s*)*:{3,}"),
    "pymdownx block": re.compile(r"^\s*(?:>\s*)*/{3,}(?:\s|$)"),
    "content tab": re.compile(r'^\s*(?:>\s*)*===\+?\s+"'),
    "macro": re.compile(r"\{\{[^}]*\}\}|\{%.*?%\}"),
    "snippet include": re.compile(r"-{1,2}8<-{1,2}"),
    "source include": re.compile(r"\{\*[^}]*\*\}|\{![^}]*!\}"),
    "attribute list": re.compile(r"\{\s*[#.][\w-]+[^{}]*\}\s*$"),
    "cross-reference": re.compile(r"\]\[[\w]+(?:\.[\w]+)+\]"),
    "MyST target": re.compile(r"^\s*\([\w.:-]+\)=\s*$"),
    "MyST role": re.compile(r"\{[\w:]+\}`"),
    # ``import X from 'y'`` / ``import 'y.css'`` / ``export const``: not prose that starts with the word
    "MDX import/export": re.compile(
        r"^(?:import\s+(?:[\w*{][^;]*\sfrom\s|['\"])|export\s+(?:default|const|let|var|function|class|async|\{|\*))"
    ),
    "JSX component": re.compile(r"</?(?:Tabs|TabItem|Admonition|CodeBlock)\b[^>]*>"),
}
# What each generator's pages may hold besides: the markers a rendered page never shows. The common
# markers above are mkdocs' and Docusaurus' (issue 20); some are prose elsewhere (a Hugo page's
# ``[text][v0.9.0]`` is a reference link, a GitBook page's ``{{metadata.name}}`` a Kubernetes field).
_COMPONENT = re.compile(r"</?[A-Z][A-Za-z]+(?:\s[^<>]*)?/?>")
GENERATOR_MARKERS: dict[str, dict[str, re.Pattern[str]]] = {
    "vitepress": {
        "container": MARKERS["colon directive"],
        "Vue component": _COMPONENT,
        "script/style block": re.compile(r"^\s*</?(?:script|style)\b"),
        "interpolation": re.compile(r"\{\{.*?\}\}"),
        "code import": re.compile(r"^\s*<<<\s"),
        "markdown include": re.compile(r"<!--\s*@include:"),
        "attribute list": MARKERS["attribute list"],
    },
    "starlight": {
        "aside": MARKERS["colon directive"],
        "component": _COMPONENT,
        "MDX": MARKERS["MDX import/export"],
    },
    "nextra": {"component": _COMPONENT, "MDX": MARKERS["MDX import/export"]},
    "mintlify": {"component": _COMPONENT, "MDX": MARKERS["MDX import/export"]},
    "hugo": {
        "shortcode": re.compile(r"\{\{[<%]|[>%]\}\}"),
        "attribute list": re.compile(r"^[\s>]*\{\s*[#.][^{}]*\}\s*$"),
    },
    "mdbook": {"include": re.compile(r"\{\{#\w+")},
    "gitbook": {"tag": re.compile(r"\{%-?\s*[\w-]+.*?%\}")},
}
_COMMON_ONLY = ("mkdocs", "docusaurus")
_IN_CODE_TOO = ("mdbook",)  # its includes sit inside code blocks
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_FENCE = re.compile(r"^\s*(?:>\s*)*(`{3,}|~{3,})")


# reStructuredText and mkdocstrings syntax, outside code: directives, label targets, roles, stubs.
_RST = re.compile(
    r"^\s*(?:>\s*)*\.\.\s+[\w:|-]+(?:::|:)(?:\s|$)|:[\w:+.-]+:`[^`]+`|^\s*(?:>\s*)*:::\s+[\w.]+",
    re.MULTILINE,
)
_FENCED = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1\s*$", re.MULTILINE | re.DOTALL)
_RST_CODE_SPAN = re.compile(r"(?<![:`])(`+)(?!`).+?(?<!`)\1(?!`)")  # not a role's `target`


def rst_leaks(markdown: str) -> list[str]:
    """The reStructuredText or mkdocstrings syntax left in ``markdown`` outside fenced code and code
    spans."""
    bare = _RST_CODE_SPAN.sub("", _FENCED.sub("", markdown))
    return [match.group(0).strip() for match in _RST.finditer(bare)]


def leaks(markdown: str, generator: str = "mkdocs") -> list[str]:
    """``kind: line`` for every marker of ``generator`` (the common markers for mkdocs and
    Docusaurus, reStructuredText's for Sphinx) left in ``markdown`` outside fenced code."""
    if generator == "sphinx":
        return [f"reStructuredText: {found}" for found in rst_leaks(markdown)]
    markers = MARKERS if generator in _COMMON_ONLY else GENERATOR_MARKERS[generator]
    found: list[str] = []
    fence = ""
    for line in markdown.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            elif generator in _IN_CODE_TOO:
                found.extend(f"{kind}: {line.strip()[:80]}" for kind, p in markers.items() if p.search(line))
            continue
        if opened:
            fence = opened.group(1)
            continue
        bare = _CODE_SPAN.sub("", line)
        found.extend(
            f"{kind}: {line.strip()[:80]}" for kind, pattern in markers.items() if pattern.search(bare)
        )
    return found


_CONTENT_FREE = re.compile(
    r"^\s*(?:#{1,6}(?:\s.*)?|<!--.*-->|:::\s+[\w.]+|\s+:\w+:.*|\s+\w+:.*|\{\{.*\}\}|)\s*$"
)


def is_stub(markdown: str) -> bool:
    """A chunk with nothing but headings, ``::: module`` directives (and their option lines), macros
    and blank lines: nothing it could answer with."""
    return all(_CONTENT_FREE.match(line) for line in markdown.split("\n"))
