"""How many chunks hold each word, read once per index the first time a long query needs it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from docs_mcp.search import lance
from docs_mcp.search.terms import WORD

__all__ = ["WordFrequencies"]


class WordFrequencies:
    """Document frequencies of the index's words (lower case, the tokenizer's word boundaries).

    Only queries longer than ``query.LONG_QUERY_WORDS`` use them, so a server that never sees one
    never reads them; the first such query reads the text column once (about a second at 33k chunks).
    """

    def __init__(self, table: Any) -> None:
        self._table = table
        self.loaded: Mapping[str, int] | None = None

    def load(self) -> Mapping[str, int]:
        """The frequencies, read on the first call. Call it from the caller's thread, not LanceDB's loop."""
        if self.loaded is None:
            counts: Counter[str] = Counter()
            for text in lance.run(lance.texts(self._table)):
                counts.update({word.lower() for word in WORD.findall(text)})
            self.loaded = counts
        return self.loaded
