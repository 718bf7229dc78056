"""What a query's words are, and which of them say nothing: shared by phrase building and snippets."""

from __future__ import annotations

from itertools import pairwise

from docs_mcp.store.term_table import WORD  # the full-text tokenizer's word boundaries

__all__ = ["STOP_WORDS", "WORD", "query_phrases"]

# The NLTK English stop list: a superset of the words LanceDB's English full-text tokenizer drops, so
# no phrase clause degenerates into a single-term match, and snippets are not centred on "the".
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
STOP_WORDS = frozenset(_STOP_TEXT.split())


def query_phrases(query: str, limit: int) -> list[str]:
    """Adjacent content-word pairs of ``query``, in order, deduplicated, at most ``limit``.

    ``"How do I set the system prompt for Claude?"`` -> ``["system prompt"]``: words next to each
    other in the query (neither a stop word) that, found next to each other in a chunk, suggest it
    is about the same thing (the ordered bigrams of the sequential dependence model). Never raises.
    """
    words = WORD.findall(query)
    pairs = (
        f"{first} {second}"
        for first, second in pairwise(words)
        if first.lower() not in STOP_WORDS and second.lower() not in STOP_WORDS
    )
    return list(dict.fromkeys(pairs))[:limit]
