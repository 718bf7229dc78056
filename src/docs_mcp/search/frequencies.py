"""How many chunks hold each word of a long query: from the ``terms`` table the build wrote
(``store.term_table``), a lookup of that query's words; for an older index without one, counted over
the whole text column at the first long query (as before)."""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from docs_mcp.search import lance
from docs_mcp.search.filters import sql_literal
from docs_mcp.store.identifiers import expand_query
from docs_mcp.store.term_table import TERMS_TABLE, WORD, chunk_words

__all__ = ["WordFrequencies", "terms_table"]

# Counts of the words of recent long queries (a word and a number each): pasted code repeats its words.
WORDS_CACHED = 20_000


class _LookedUp(Mapping[str, int]):
    """Counts of the words looked up so far, the least recently used forgotten past ``WORDS_CACHED``;
    a word not held (never looked up, or forgotten under concurrent queries) is looked up alone."""

    def __init__(self, terms: Any) -> None:
        self._terms = terms
        self._lock = threading.Lock()
        self._counts: OrderedDict[str, int] = OrderedDict()

    def fetch(self, words: set[str]) -> None:
        """Look up the words of ``words`` not held, in one query."""
        with self._lock:
            missing = sorted(word for word in words if word not in self._counts)
        if not missing:
            return
        where = f"term IN ({', '.join(map(sql_literal, missing))})"
        read = self._terms.search().where(where).select(["term", "chunks"]).limit(None).to_arrow()
        found = dict(zip(read["term"].to_pylist(), read["chunks"].to_pylist(), strict=True))
        with self._lock:
            for word in missing:
                self._counts[word] = int(found.get(word, 0))
                self._counts.move_to_end(word)
            while len(self._counts) > WORDS_CACHED:
                self._counts.popitem(last=False)

    def __getitem__(self, word: str) -> int:
        with self._lock:
            count = self._counts.get(word)
        if count is None:
            self.fetch({word})
            with self._lock:
                count = self._counts.get(word, 0)
        return count

    def __iter__(self) -> Iterator[str]:
        with self._lock:
            return iter(list(self._counts))

    def __len__(self) -> int:
        return len(self._counts)


def terms_table(root: Path) -> Any | None:
    """The ``terms`` table of the index in ``root``; None when it has none (built before it existed)."""
    try:
        return lance.connect(root).open_table(TERMS_TABLE)
    except ValueError:  # "Table 'terms' was not found"
        return None


class WordFrequencies:
    """Document frequencies of the index's words (lower case, the tokenizer's word boundaries).

    Only queries longer than ``query.LONG_QUERY_WORDS`` use them, so a server that never sees one never
    reads them. ``terms``: the index's ``terms`` table (sync), None for an index built without one.
    """

    def __init__(self, table: Any, terms: Any | None = None) -> None:
        self._table = table
        self._looked_up = _LookedUp(terms) if terms is not None else None
        self.loaded: Mapping[str, int] | None = self._looked_up

    def load(self, query: str = "") -> Mapping[str, int]:
        """The frequencies, holding at least the words of ``query``. Call it from the caller's thread,
        not LanceDB's loop."""
        if self._looked_up is not None:
            self._looked_up.fetch(chunk_words(expand_query(query)))
            return self._looked_up
        if self.loaded is None:
            counts: Counter[str] = Counter()
            for text in lance.run(lance.texts(self._table)):
                counts.update({word.lower() for word in WORD.findall(text)})
            self.loaded = counts
        return self.loaded
