"""The ``impacts`` table beside ``chunks``: per full-text token, the most one chunk can score for it.

A search across libraries (``server.tools.hub_tools``) asks a library only when its best possible
score could still reach the page: the bound of a query is the sum over its clauses' tokens of these
impacts (``search.bounds``). Tokens are LanceDB's own (``lancedb.tokenize`` with the options of the
full-text index), and an impact is the token's highest BM25 term score in any one chunk, computed
as LanceDB scores it. Rows are keyed by a 64-bit hash
of the token, sorted; tokens sharing a hash keep the larger impact (a query token that only shares
a hash gets a bound too high, never too low). Indexes built before the table have none: a search
across libraries always asks them.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

__all__ = ["BM25_B", "BM25_K1", "HASH_COLUMN", "IMPACTS_TABLE", "bm25_impact", "bm25_scores", "token_hash"]

IMPACTS_TABLE = "impacts"
HASH_COLUMN = "hash"  # one float64 column per full-text column beside it, named as that column

# LanceDB's BM25 parameters (lance-index's scorer; checked against its scores in tests/search).
BM25_K1 = 1.2
BM25_B = 0.75


def token_hash(token: str) -> int:
    """A stable 64-bit key of ``token`` (Python's ``hash`` changes per process)."""
    return int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")


def bm25_impact(chunks: int, holding: int, frequency: int, length: int, average: float) -> float:
    """LanceDB's BM25 score of one token in one chunk: ``chunks`` in the index, ``holding`` of them
    hold the token, ``frequency`` times in this chunk of ``length`` tokens (``average`` over all)."""
    if average <= 0:  # every chunk empty: no length to normalise by
        return float(bm25_scores(chunks, holding, frequency, 1, 1.0)) if frequency else 0.0
    return float(bm25_scores(chunks, holding, frequency, length, average))


def bm25_scores(chunks: Any, holding: Any, frequency: Any, length: Any, average: Any) -> Any:
    """:func:`bm25_impact` of numpy arrays, element by element (``average`` above 0)."""
    idf = np.log(1 + (chunks - holding + 0.5) / (holding + 0.5))
    norm = BM25_K1 * (1 - BM25_B + BM25_B * np.asarray(length, dtype=np.float64) / average)
    return idf * (BM25_K1 + 1) * frequency / (frequency + norm)
