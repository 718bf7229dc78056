"""Cross-language folding: one section documented in several languages is one hit, not three.

Applied after fusion and before paging, for every ``vector_collapse`` facet the caller did not set
(the taxonomy flag, recorded in the index manifest). Two hits are *the same section* in different
values of such a facet when, once each hit's own value (and its aliases) is taken out of its file
name and heading path, compared without case or separators:

- their files have the same name (SDK generators place one page in different folders per language:
  ``java/docs/models/components/Foo.md``, ``python/docs/models/foo.md``);
- their heading paths and parts are equal, or equal but for a page title only one of them has (the
  Go README's ``# github.com/org/sdk-go`` above sections the Python README has at the top; two
  different titles are two different pages, as with every SDK's ``docs/sdks/*/README.md``);
- their other facets are equal (``api``, ``scope``).

Hits are taken best first; each one folds into an earlier hit of another value it is the same
section of, preferring one that does not list its value yet, then the one whose folders share the
most words with its own, then the best-ranked. So no two remaining hits are one section in two
values; copies within one value (a ``README-PYPI.md`` beside a ``README.md``) stay apart, and both
copies of another value may fold into one hit. The remaining hits keep their order and list what
folded into them (``also_in``). A hit only ever folds into a better one, so the folded order of the
first N hits does not depend on how many hits were ranked after them: pages stay stable, and a
folded hit is counted once, in its best hit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from docs_mcp.search.types import Variant

__all__ = ["FoldedHit", "Folder", "HitRow", "Strip", "fold", "path_words"]

_ALNUM = re.compile(r"[^\W_]+")

Words = tuple[str, ...]


@dataclass(frozen=True)
class HitRow:
    """What folding reads of a hit: its file and its facet values."""

    file_path: str
    facets: Mapping[str, str]


@dataclass
class FoldedHit:
    chunk_id: str
    score: float
    also_in: list[Variant] = field(default_factory=list)


@dataclass
class _Kept:
    hit: FoldedHit
    values: tuple[str, ...]  # its values of the folding facets
    headings: list[tuple[str, ...]]  # the heading paths of the hits folded in (its own included)
    folders: frozenset[str]
    held: set[tuple[str, ...]]  # value tuples it lists (its own included)


@dataclass(frozen=True)
class _Signature:
    """What folding compares of one hit, computed once per chunk."""

    own: tuple[str, ...]  # its values of the folding facets
    key: tuple[object, ...]  # other facets, file name, last heading: only hits with one key can match
    headings: tuple[str, ...]
    folders: frozenset[str]


class Folder:
    """Folds rankings of one index; ``names[facet][value]`` are the words naming a value (itself and
    its aliases, see ``path_words``), taken out of paths before comparing. Each chunk's signature is
    computed once (the index never changes) and kept for the next searches, up to ``cache_size``."""

    def __init__(self, names: Mapping[str, Mapping[str, Strip]], cache_size: int = 65_536) -> None:
        self._names = names
        self._cache: dict[tuple[str, tuple[str, ...]], _Signature | None] = {}
        self._cache_size = cache_size

    def fold(
        self, ranked: Iterable[tuple[str, float]], row_of: Callable[[str], HitRow], facets: Sequence[str]
    ) -> list[FoldedHit]:
        """``ranked`` (best first) with the same section in other values of ``facets`` folded into
        its best hit; ``row_of(id)`` describes a ranked id (asked only for chunks not seen before)."""
        folding = tuple(facets)
        kept: list[FoldedHit] = []
        groups: dict[tuple[object, ...], list[_Kept]] = {}
        for chunk_id, score in ranked:
            hit = FoldedHit(chunk_id, score)
            kept.append(hit)
            signature = self._signature(chunk_id, row_of, folding)
            if signature is None:
                continue  # not in every folding facet: never the same section as another hit
            own, headings = signature.own, signature.headings
            candidates = [
                group
                for group in groups.get(signature.key, [])
                if own != group.values and any(_same_headings(known, headings) for known in group.headings)
            ]
            if not candidates:
                groups.setdefault(signature.key, []).append(
                    _Kept(hit, own, [headings], signature.folders, {own})
                )
                continue
            # Prefer a hit that does not list this value yet, then the closest folders, then the best.
            into = max(
                candidates, key=lambda group: (own not in group.held, len(group.folders & signature.folders))
            )
            kept.pop()
            facet, value = next((f, v) for f, v, w in zip(folding, own, into.values, strict=True) if v != w)
            into.hit.also_in.append(Variant(facet, value, chunk_id))
            into.held.add(own)
            into.headings.append(headings)
        return kept

    def _signature(
        self, chunk_id: str, row_of: Callable[[str], HitRow], folding: tuple[str, ...]
    ) -> _Signature | None:
        cached = self._cache.get((chunk_id, folding), self)
        if cached is not self:
            return cached  # type: ignore[return-value]
        row = row_of(chunk_id)
        own = tuple(row.facets[facet] for facet in folding if facet in row.facets)
        signature = None
        if len(own) == len(folding):
            strip = self._names[folding[0]][own[0]]
            for facet, value in zip(folding[1:], own[1:], strict=True):
                strip |= self._names[facet][value]
            name, headings, folders = _shape(chunk_id, row.file_path, strip)
            others = tuple(sorted((k, v) for k, v in row.facets.items() if k not in folding))
            key = (others, name, headings[-1] if headings else "")
            signature = _Signature(own, key, headings, folders)
        if len(self._cache) >= self._cache_size:
            self._cache.clear()
        self._cache[(chunk_id, folding)] = signature
        return signature


def fold(
    ranked: Iterable[tuple[str, float]],
    rows: Mapping[str, HitRow],
    facets: Sequence[str],
    names: Mapping[str, Mapping[str, Strip]],
) -> list[FoldedHit]:
    """``Folder(names).fold(ranked, rows.__getitem__, facets)``, for one ranking."""
    return Folder(names).fold(ranked, rows.__getitem__, facets)


@dataclass(frozen=True)
class Strip:
    """The words naming one value, to take out of paths: single words, and multi-word names."""

    words: frozenset[str]
    sequences: tuple[Words, ...] = ()

    def __or__(self, other: Strip) -> Strip:
        return Strip(self.words | other.words, tuple(sorted({*self.sequences, *other.sequences})))


def path_words(spellings: Mapping[str, Mapping[str, Iterable[str]]]) -> dict[str, dict[str, Strip]]:
    """``fold``'s ``names`` from the spellings of each value (facet -> value -> its names)."""
    names: dict[str, dict[str, Strip]] = {}
    for facet, values in spellings.items():
        for value, spelled in values.items():
            split = {tuple(_ALNUM.findall(name.lower())) for name in spelled} - {()}
            names.setdefault(facet, {})[value] = Strip(
                frozenset(w[0] for w in split if len(w) == 1), tuple(sorted(w for w in split if len(w) > 1))
            )
    return names


def _shape(chunk_id: str, file_path: str, strip: Strip) -> tuple[str, tuple[str, ...], frozenset[str]]:
    """The file name, heading path (with part) and folder words of a hit, without its own values."""
    folder, _, name = file_path.rpartition("/")
    fragment = chunk_id[len(file_path) + 1 :] if chunk_id.startswith(file_path + "#") else ""
    headings = tuple(_plain(segment, strip) for segment in fragment.split("/")) if fragment else ()
    folders = frozenset(_cut(_ALNUM.findall(folder.lower()), strip))
    return _plain(name, strip), headings, folders


def _plain(text: str, strip: Strip) -> str:
    return "".join(_cut(_ALNUM.findall(text.lower()), strip))


def _cut(tokens: list[str], strip: Strip) -> list[str]:
    """``tokens`` without the words and word sequences of ``strip``."""
    for words in strip.sequences:
        if words[0] not in tokens:
            continue
        size = len(words)
        i = 0
        while i + size <= len(tokens):
            if tuple(tokens[i : i + size]) == words:
                del tokens[i : i + size]
            else:
                i += 1
    if strip.words.isdisjoint(tokens):
        return tokens
    return [token for token in tokens if token not in strip.words]


def _same_headings(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    # Equal, or equal but for a page title only one of the two has.
    return one == other or one[1:] == other or one == other[1:]
