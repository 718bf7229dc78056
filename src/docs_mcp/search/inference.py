"""Facet values named in a query: "retry configuration typescript", "in python", "golang" -> go.

An agent often writes the language into the query instead of the ``language`` argument. The index
then ranks the hits of the named value first (without dropping the rest) and says so in the result
(``inferred_filters``), so the agent learns the argument. Which words name a value:

- the value itself, as words ("global-guide" is the words "global guide");
- the aliases the taxonomy declares for it (``"go": {"aliases": ["golang"]}``);
- for the language facet, built-in synonyms of common language names (``BUILTIN_SYNONYMS``), and
  the JavaScript names (js, node, node.js) for ``typescript`` when the index has no ``javascript``.

Words that are also plain English ("go", "swift", "rust", "c") name a language only beside a cue
("in go", "for go", "the go sdk") or after another value's name that needs none ("in dub go", the
API named before its language): "how do I go to the next page" names none. A facet counts only
when the query names exactly one of its values; a facet the caller set is never inferred.

The words that named an inferred value leave the full-text query (``without_names``), and with them
the noun right after them that names the thing they qualify ("the python sdk", "the go client"):
once the filter holds, "sdk" would only match every page that says "SDK".
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from docs_mcp.search.terms import STOP_WORDS

__all__ = ["BUILTIN_SYNONYMS", "Vocabulary", "words"]

# Each set names one language; an index value in a set is also named by the others.
BUILTIN_SYNONYMS: tuple[frozenset[str], ...] = (
    frozenset({"go", "golang"}),
    frozenset({"typescript", "ts"}),
    frozenset({"javascript", "js", "node", "nodejs", "node.js"}),
    frozenset({"python", "py", "python3"}),
    frozenset({"csharp", "c#", "dotnet", "c-sharp"}),
    frozenset({"cpp", "c++"}),
    frozenset({"kotlin", "kt"}),
    frozenset({"ruby", "rb"}),
    frozenset({"rust", "rs"}),
    frozenset({"shell", "bash", "sh"}),
)
_JAVASCRIPT = next(group for group in BUILTIN_SYNONYMS if "javascript" in group)
# Words that are common outside programming: they name a value only next to a cue word.
_AMBIGUOUS = frozenset(
    {"go", "c", "d", "r", "v", "swift", "dart", "rust", "ruby", "crystal", "julia", "node"}
)
_CUES_BEFORE = frozenset({"in", "using", "with", "for", "via", "from"})
_CUES_AFTER = frozenset(
    {"sdk", "sdks", "client", "library", "lib", "package", "module", "code", "example", "examples"}
    | {"snippet", "version", "app", "program", "bindings", "api", "server", "developers"}
)
# The cue nouns that, right after a named value, name the SDK itself: they leave the query with it.
_SDK_NOUNS = frozenset({"sdk", "sdks", "client", "library", "lib", "package", "module", "bindings"})
_WORD = re.compile(r"[^\W_]+(?:\.js|#|\+\+)?")

Words = tuple[str, ...]


def words(text: str) -> Words:
    """``text`` as lower-case words; "node.js", "c#" and "c++" stay one word each."""
    return tuple(_WORD.findall(text.lower()))


@dataclass(frozen=True)
class _Name:
    words: Words
    value: str
    needs_cue: bool


class Vocabulary:
    """The words naming each value of each facet, built once per index.

    ``facets``: facet -> its values in the index; ``aliases``: facet -> value -> declared aliases;
    ``language``: the facet the built-in synonyms apply to.
    """

    def __init__(
        self,
        facets: Mapping[str, Sequence[str]],
        aliases: Mapping[str, Mapping[str, Sequence[str]]],
        language: str,
    ) -> None:
        self._names: dict[str, list[_Name]] = {}
        self.spellings: dict[str, dict[str, list[str]]] = {}  # facet -> value -> the names of the value
        for facet, values in facets.items():
            declared = aliases.get(facet, {})
            builtin = _builtin_synonyms(values) if facet == language else {}
            names: list[_Name] = []
            for value in values:
                spelled = sorted({value, *declared.get(value, ()), *builtin.get(value, ())})
                self.spellings.setdefault(facet, {})[value] = spelled
                found = sorted({words(name) for name in spelled} - {()})
                names.extend(_Name(w, value, _needs_cue(w)) for w in found if not _stop(w))
            self._names[facet] = names

    def infer(self, query: str, explicit: Collection[str]) -> dict[str, str]:
        """The facet values ``query`` names, for facets not in ``explicit`` (see the module docstring)."""
        tokens = words(query)
        inferred: dict[str, str] = {}
        plain = self._plain_names(tokens)
        for facet, names in self._names.items():
            if facet in explicit:
                continue
            named = {name.value for name in names if _named(name, tokens, plain)}
            if len(named) == 1:
                inferred[facet] = named.pop()
        return inferred

    def without_names(self, query: str, inferred: Mapping[str, str]) -> str:
        """``query`` without the words that named the ``inferred`` values: they did their work as a
        filter, and as match terms they would favour every page that merely mentions the value
        ("... in python" matching each page that says "python"). ``query`` itself when nothing
        else would be left."""
        tokens = words(query)
        plain = self._plain_names(tokens)
        spans = [
            name.words
            for facet, value in inferred.items()
            for name in self._names.get(facet, ())
            if name.value == value and _named(name, tokens, plain)
        ]
        stripped = query
        for span in sorted(spans, key=len, reverse=True):
            noun = rf"(?:[\W_]+(?:{'|'.join(sorted(_SDK_NOUNS))}))?"
            pattern = r"[\W_]+".join(re.escape(word) for word in span) + noun
            stripped = re.sub(rf"(?<![^\W_]){pattern}(?![^\W_])", " ", stripped, flags=re.IGNORECASE)
        left = [word for word in words(stripped) if word not in STOP_WORDS]
        return " ".join(stripped.split()) if left else query

    def _plain_names(self, tokens: Words) -> frozenset[str]:
        """The one-word names in ``tokens`` that need no cue: they cue a name right after them."""
        return frozenset(
            name.words[0]
            for names in self._names.values()
            for name in names
            if len(name.words) == 1 and not name.needs_cue and name.words[0] in tokens
        )


def _builtin_synonyms(values: Sequence[str]) -> dict[str, frozenset[str]]:
    present = {value.lower(): value for value in values}
    synonyms: dict[str, frozenset[str]] = {}
    for group in BUILTIN_SYNONYMS:
        for spelled, value in present.items():
            if spelled in group:
                synonyms[value] = group - {spelled}
    # A TypeScript SDK is what a JavaScript developer uses when the index has no JavaScript one.
    if "typescript" in present and not _JAVASCRIPT & present.keys():
        value = present["typescript"]
        synonyms[value] = synonyms.get(value, frozenset()) | _JAVASCRIPT
    return synonyms


def _needs_cue(name: Words) -> bool:
    return len(name) == 1 and (name[0] in _AMBIGUOUS or len(name[0]) == 1)


def _stop(name: Words) -> bool:
    return all(word in STOP_WORDS for word in name)


def _named(name: _Name, tokens: Words, plain: frozenset[str] = frozenset()) -> bool:
    size = len(name.words)
    for start in range(len(tokens) - size + 1):
        if tokens[start : start + size] != name.words:
            continue
        if not name.needs_cue:
            return True
        before = tokens[start - 1] if start > 0 else ""
        after = tokens[start + size] if start + size < len(tokens) else ""
        if before in _CUES_BEFORE or before in plain or after in _CUES_AFTER:
            return True
    return False
