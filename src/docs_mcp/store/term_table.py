"""The ``terms`` table beside ``chunks``: how many chunks hold each word, written by the build.

Long-query trimming (``search.query.match_terms``) keeps a pasted block's rarest words; it asks this
table for the counts of one query's words (a btree lookup) instead of counting the whole corpus at
the first long query. Words are the full-text tokenizer's word boundaries, lower case, counted once
per chunk of its plain ``text``. Indexes built before the table existed have none; their readers
count at the first long query, as before.
"""

from __future__ import annotations

import re

__all__ = ["TERMS_TABLE", "WORD", "chunk_words"]

TERMS_TABLE = "terms"

# The full-text tokenizer's word boundaries: "Claude's" -> Claude, s.
WORD = re.compile(r"[A-Za-z0-9]+")


def chunk_words(text: str) -> set[str]:
    """The distinct lower-case words of one chunk's text (each counts once per chunk)."""
    return {word.lower() for word in WORD.findall(text)}
