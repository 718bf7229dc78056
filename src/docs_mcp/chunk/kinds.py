"""What a section of generated SDK docs is for (the ``kind`` facet), recognised from its structure.

SDK generators differ in file names but agree on shapes, which is what this reads:

- **operation**: one API call: a heading whose section holds at least two of an example, a
  parameters list and a response/return type (Speakeasy's ``docs/sdks/*/README.md`` ``## create``
  with ``### Example Usage`` / ``### Parameters`` / ``### Response``; OpenAPI Generator's
  ``# **create_link**`` with ``### Example`` / ``### Parameters`` / ``### Return type``; Fern's
  ``reference.md`` with ``#### 🔌 Usage`` / ``#### ⚙️ Parameters``), or a method signature line
  (Stainless's ``api.md``: ``<code title="post /links">client.links.create(...)``; Fern's
  ``<summary><code>client.links.create(...)``). Its subsections, cut into chunks of their own, are
  operation too.
- **model**: a type: a field table (``| Field | Type | ...``, OpenAPI Generator's ``Name | Type |
  Description | Notes`` under ``## Properties``) or an enum's values; every section of a small page
  (``TYPE_PAGE_SECTIONS``) that holds one and no operation (its ``## Example Usage`` included).
- **error**: a model whose page sits in an ``errors``/``sdkerrors``/``exceptions`` folder or whose
  title ends in ``Error`` or ``Exception``.
- **topic**: a section of a README-like page about one client concern: installation,
  authentication, retries, timeouts, errors, pagination, streaming, file uploads, server selection,
  the HTTP client, debugging and logging, resource management.

- **overview**: a section that is mostly a list of links to other sections (Speakeasy's
  ``## Overview`` / ``### Available Operations``, a README's "Available Resources and Operations",
  a table of contents), or nothing but links (a resource's overview of its one operation): it
  names every operation and answers none.

Anything else gets no kind (plain guides look like nothing here; a manifest may say ``guide``). A
``kind`` a manifest, front matter or hint already gave a chunk always wins. Pure: chunks in, chunks
out; the ranking prior that reads the facet is ``docs_mcp.search.kind_prior``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from docs_mcp.chunk.chunks import Chunk

__all__ = [
    "ERROR",
    "GUIDE",
    "KIND",
    "KINDS",
    "MODEL",
    "OPERATION",
    "OVERVIEW",
    "TOPIC",
    "is_example_heading",
    "names_sdk_role",
    "recognise",
    "with_kinds",
]

KIND = "kind"
OPERATION, MODEL, ERROR, TOPIC, OVERVIEW = "operation", "model", "error", "topic", "overview"
GUIDE = "guide"  # never recognised: a manifest, front matter or hint says it
KINDS = (OPERATION, MODEL, ERROR, TOPIC, OVERVIEW, GUIDE)  # the values ``kind`` may take

Path = tuple[str, ...]

# Subsection headings of an operation, by role (lower case, emoji and punctuation taken out).
_EXAMPLE = re.compile(r"^(example usage|examples?|usage|request example|code sample)$")
_PARAMETERS = re.compile(r"^(parameters|arguments|request body|request parameters|path parameters)$")
_RESPONSE = re.compile(
    r"^(response|responses|returns?|return type|return value|errors|http response details)$"
)
# A method signature line: Stainless ``<code title="post /links">``, Fern ``<summary><code>client.``.
_SIGNATURE = re.compile(
    r'<code title="(?:get|post|put|patch|delete) /|<summary><code>\w+(?:\.\w+)+\.?(?:<a |\w+\()',
    re.IGNORECASE,
)
# A field table's header row (leading pipe optional: OpenAPI Generator writes none), or an enum's.
_FIELD_TABLE = re.compile(
    r"^\|?\s*\**(field|name|property|attribute|parameter)\**\s*\|\s*\**type\**\s*\|"
    r"|^\|?\s*\**name\**\s*\|\s*\**value\**\s*\|",
    re.IGNORECASE | re.MULTILINE,
)
_TYPE_HEADING = re.compile(r"^(fields|properties|attributes|members|values|enum values|supported types)$")
TYPE_PAGE_SECTIONS = 4  # at most this many sections on a type's page
# Headings that make a type's section whatever follows (an enum's literals, a union's members).
_LISTING_HEADINGS = frozenset({"values", "enum values", "supported types"})
_ERROR_FOLDERS = frozenset({"errors", "sdkerrors", "exceptions", "error"})
_ERROR_TITLE = re.compile(r"(error|exception)$", re.IGNORECASE)
_TOPIC = re.compile(
    r"^(sdk )?(installation|install|installing|requirements|authentication|auth|api key setup|"
    r"retries|retry|timeouts?|error handling|handling errors|errors|exception handling|pagination|"
    r"server.sent event streaming|streaming( responses)?|file uploads?|server selection|"
    r"custom http client|configuring the http client|http client|debugging|logging|"
    r"resource management|sdk example usage|usage|getting started|quickstart)$"
)
# A list item or table row that links somewhere: ``* [create](#create) - Create a link``.
_LINK_LINE = re.compile(r"^\s*(?:[-*+]|\d+[.)]|\|)\s*.*\]\([^)]*\)")
OVERVIEW_LINKS = 2  # at least this many linking lines,
OVERVIEW_SHARE = 0.6  # and this share of the section's non-blank, non-heading lines
_COMMENT_LINE = re.compile(r"^\s*<!--.*-->\s*$")
_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_README = re.compile(r"^(readme|usage|readme-\w+)\.mdx?$", re.IGNORECASE)


def _plain(heading: str) -> str:
    """A heading compared by role: lower case, letters, digits and single spaces."""
    return " ".join(re.sub(r"[^a-z0-9.]+", " ", heading.lower().replace("**", "")).split()).strip(". ")


def is_example_heading(heading: str) -> bool:
    """Whether ``heading`` titles an operation's example ("Example Usage", "Example", "🔌 Usage")."""
    return bool(_EXAMPLE.match(_plain(heading)))


def names_sdk_role(heading: str) -> bool:
    """Whether ``heading`` names a part of an operation (its example, parameters, response), a
    client concern of a README (retries, pagination, ...) or a type's listing (its values): a
    section an SDK question is answered with, which keeps a chunk of its own however short."""
    plain = _plain(heading)
    roles = (_EXAMPLE, _PARAMETERS, _RESPONSE, _TOPIC)
    return plain in _LISTING_HEADINGS or any(role.match(plain) for role in roles)


def _inner_headings(markdown: str) -> list[tuple[int, str]]:
    """The (level, text) of the headings inside ``markdown``, outside code fences."""
    found: list[tuple[int, str]] = []
    fence = ""
    for line in markdown.splitlines():
        opener = _FENCE.match(line)
        if opener:
            marker = opener.group(1)
            if not fence:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = ""
            continue
        heading = None if fence else _HEADING_LINE.match(line)
        if heading:
            found.append((len(heading.group(1)), heading.group(2)))
    return found


def _path(chunk: Chunk) -> Path:
    return (*chunk.breadcrumb, chunk.heading) if chunk.heading else tuple(chunk.breadcrumb)


def _operations(chunks: Sequence[Chunk]) -> set[Path]:
    """Heading paths of the file's operations: two of example / parameters / response below them
    (in their own chunk or in chunks of their subsections), or a signature line."""
    roles: dict[Path, set[str]] = {}
    found: set[Path] = set()
    for chunk in chunks:
        own = _path(chunk)
        if _SIGNATURE.search(chunk.markdown):
            found.add(own)
        # A subsection chunk tells its parent what it is; inner headings tell the chunk itself.
        subsections = [(own[:-1], chunk.heading)] if chunk.breadcrumb else []
        subsections += [(own, text) for level, text in _inner_headings(chunk.markdown) if level > chunk.level]
        for parent, heading in subsections:
            name = _plain(heading)
            for role, pattern in (
                ("example", _EXAMPLE),
                ("parameters", _PARAMETERS),
                ("response", _RESPONSE),
            ):
                if pattern.match(name):
                    roles.setdefault(parent, set()).add(role)
    found.update(path for path, seen in roles.items() if len(seen) >= 2 and path)
    return found


def _is_error_page(path: str, title: str) -> bool:
    folders = {part.lower() for part in PurePosixPath(path).parts[:-1]}
    return bool(folders & _ERROR_FOLDERS) or bool(_ERROR_TITLE.search(title.replace(" ", "")))


def _is_type_section(chunk: Chunk) -> bool:
    """Whether ``chunk`` holds a type's own section: its heading, or one inside it (a page chunked
    whole), is a type heading over a field table, or an enum's / union's listing heading."""
    headings = {_plain(chunk.heading), *(_plain(text) for _, text in _inner_headings(chunk.markdown))}
    typed = {heading for heading in headings if _TYPE_HEADING.match(heading)}
    return bool(typed & _LISTING_HEADINGS) or (bool(typed) and bool(_FIELD_TABLE.search(chunk.markdown)))


def _is_overview(chunk: Chunk) -> bool:
    # Headings and comments (a generator's ``<!-- Start ... -->`` markers) are neither links nor text.
    lines = [
        line
        for line in chunk.markdown.splitlines()
        if line.strip() and not _HEADING_LINE.match(line) and not _COMMENT_LINE.match(line)
    ]
    links = sum(bool(_LINK_LINE.match(line)) for line in lines)
    # A resource with one operation has an overview of one link: nothing but links is one too.
    return (links >= OVERVIEW_LINKS and links >= OVERVIEW_SHARE * len(lines)) or (0 < links == len(lines))


def recognise(chunks: Sequence[Chunk]) -> list[str | None]:
    """The kind of each chunk of one file (None: none recognised), in order."""
    if not chunks:
        return []
    operations = _operations(chunks)
    in_operation = [any(_path(c)[: len(op)] == op for op in operations) for c in chunks]
    # A type's own section: a field table under a type heading ("Fields", "Properties"), or an
    # enum's "Values", a union's "Supported Types". A table elsewhere (a README's error properties)
    # is no type.
    fields = [not op and _is_type_section(c) for c, op in zip(chunks, in_operation, strict=True)]
    first = chunks[0]
    # A type's page is small: its title, an example, its fields (parts of one long table count once).
    # A guide with a field table somewhere (a chart's values) is no type page: only that section is.
    sections = {_path(chunk) for chunk in chunks}
    type_page = any(fields) and not any(in_operation) and len(sections) <= TYPE_PAGE_SECTIONS
    type_kind = ERROR if _is_error_page(first.file_path, first.title or first.heading) else MODEL
    readme = bool(_README.match(PurePosixPath(first.file_path).name))
    kinds: list[str | None] = []
    for chunk, operation, table in zip(chunks, in_operation, fields, strict=True):
        if operation:
            kinds.append(OPERATION)
        elif type_page or table:  # every section of a type's page (its example too)
            kinds.append(type_kind)
        elif _is_overview(chunk):
            kinds.append(OVERVIEW)
        elif readme and _TOPIC.match(_plain(chunk.heading)):
            kinds.append(TOPIC)
        else:
            kinds.append(None)
    return kinds


def with_kinds(chunks: Sequence[Chunk]) -> list[Chunk]:
    """``chunks`` (one file's, in order) with the ``kind`` each is recognised as in its metadata; a
    chunk that already has a ``kind`` keeps it."""
    kinds = recognise(chunks)
    return [
        chunk
        if kind is None or KIND in chunk.metadata
        else dataclasses.replace(chunk, metadata={**chunk.metadata, KIND: kind})
        for chunk, kind in zip(chunks, kinds, strict=True)
    ]
