"""Identifier splitting, shared by indexing and queries.

SDK documentation names things the way code does: ``createLink``, ``create_link``, ``links.create``,
``CreateLinkRequest``. People search for "create link". The full-text tokenizer splits on punctuation
(so ``links.create`` and ``create_link`` already become words) but keeps ``createLink`` as the single
token ``createlink``. We therefore index, beside the original text, the *parts* of every compound
identifier, and add the same parts to a query, so both spellings meet in the middle:

    "createLink"          -> "create link"
    "CreateLinkRequest"   -> "create link request"
    "HTTPClient"          -> "http client"
    "create link"         -> ""            (nothing to add: already plain words)
"""

from __future__ import annotations

import re
from itertools import pairwise

# A token with a camelCase hump (lower/digit then upper: ``createLink``, ``v2Beta``) or an acronym
# followed by a word (``HTTPClient``). Matching these directly keeps indexing fast on prose.
_COMPOUND = re.compile(r"[A-Za-z0-9]*(?:[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9]*")
# camelCase / PascalCase / acronym boundaries: "HTTPClient" -> HTTP, Client; "v2Beta" -> v2, Beta.
_CAMEL_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SEPARATORS = re.compile(r"[_.\-]+")


def identifier_parts(token: str) -> list[str]:
    """The lower-case words of one identifier: ``CreateLinkRequest`` -> ``["create", "link", "request"]``.

    A plain word gives itself (``["link"]``).
    """
    parts: list[str] = []
    for piece in _SEPARATORS.split(token):
        parts.extend(match.group(0).lower() for match in _CAMEL_PART.finditer(piece))
    return parts


def split_identifiers(text: str) -> str:
    """The extra words hidden in ``text``'s compound identifiers, space separated, in text order.

    Only identifiers whose camelCase humps hide words produce output, so ordinary prose yields ""
    and the column stays small. Never raises.
    """
    words: list[str] = []
    for match in _COMPOUND.finditer(text):
        words.extend(identifier_parts(match.group(0)))
    return " ".join(words)


def expand_query(query: str) -> str:
    """``query`` plus the parts of its compound identifiers, for matching the split column.

    ``"createLink"`` -> ``"createLink create link"``; a plain query comes back unchanged.
    """
    extra = split_identifiers(query)
    return f"{query} {extra}" if extra else query


# Words never paired into a phrase: the NLTK English stop list. It is a superset of the words
# LanceDB's English full-text tokenizer drops, so no phrase degenerates into a single-term match
# (a pair holding a dropped word would just re-score the other word).
_STOP_TEXT = (
    "i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves "
    "he him his himself she she's her hers herself it it's its itself they them their theirs themselves "
    "what which who whom this that that'll these those am is are was were be been being have has had "
    "having do does did doing a an the and but if or because as until while of at by for with about "
    "against between into through during before after above below to from up down in out on off over "
    "under again further then once here there when where why how all any both each few more most other "
    "some such no nor not only own same so than too very s t can will just don don't should should've "
    "now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan "
    "shouldn wasn weren won wouldn"
)
_STOP_WORDS = frozenset(_STOP_TEXT.split())
_WORD = re.compile(r"[A-Za-z0-9]+")  # the tokenizer's word boundaries: "Claude's" -> Claude, s


def query_phrases(query: str, limit: int) -> list[str]:
    """Adjacent content-word pairs of ``query``, in order, deduplicated, at most ``limit``.

    ``"How do I set the system prompt for Claude?"`` -> ``["system prompt"]``: words next to each
    other in the query (neither a stop word) that, found next to each other in a chunk, suggest it
    is about the same thing (the ordered bigrams of the sequential dependence model). Never raises.
    """
    words = [match.group(0) for match in _WORD.finditer(query)]
    pairs = (
        f"{first} {second}"
        for first, second in pairwise(words)
        if first.lower() not in _STOP_WORDS and second.lower() not in _STOP_WORDS
    )
    return list(dict.fromkeys(pairs))[:limit]
