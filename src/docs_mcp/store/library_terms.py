"""The per-library term statistics a union index keeps (``indexing.union``), so that a hit it finds
is scored as its own library's index scores it (``search.rescore``).

BM25 depends on the index a chunk sits in: its number of chunks, each full-text column's average
length in tokens, and how many chunks hold each token. The union's own statistics are every
library's together; these two tables keep each library's:

- ``library_sizes``: per library, its chunks (``rows``) and per full-text column its total length in
  tokens (a column named as the full-text column);
- ``library_terms``: per library and token (``hash``: ``store.impact_table.token_hash`` of the token
  as LanceDB's tokenizer makes it), per full-text column how many of its chunks hold the token.

And each union row holds its full-text columns' tokens (:func:`tokens_column`): per position LanceDB's
tokenizer gives a token, :func:`short_hash` of it, 0 where it gives none (a stop word): a hit's term
frequencies, length and phrases without tokenizing its text again at query time.

A union made before these has none: its searches cannot be rescored (the server then routes
instead, ``server.tools.hub_union``).
"""

from __future__ import annotations

__all__ = ["LIBRARY_SIZES", "LIBRARY_TERMS", "ROWS_COLUMN", "UNION_FORMAT", "short_hash", "tokens_column"]

# Part of a union's key (``union_key``): a union of another format is made again, not opened.
UNION_FORMAT = "union 2: library statistics and row tokens"

LIBRARY_SIZES = "library_sizes"
LIBRARY_TERMS = "library_terms"
ROWS_COLUMN = "rows"
_TOKENS = "tokens_"


def tokens_column(column: str) -> str:
    """The union column holding the tokens of full-text ``column``."""
    return _TOKENS + column


def short_hash(token_hash: int) -> int:
    """A token's 32-bit key in a row's tokens (never 0: 0 marks a position without a token)."""
    return (token_hash & 0xFFFFFFFF) or 1
