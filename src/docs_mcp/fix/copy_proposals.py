"""Copy rules: files ``fix`` finds to be copies of others, proposed as ``copy_of`` overrides.

Candidates, as ``(copy, original)`` pairs of files in one manifest's folder:

- the detector's groups (``corpus/copies.py``): each copy's file with its group's main copy's file;
- by path, the near-copies whose texts the detector's test rejects: a ``-PYPI`` twin and the file
  it twins in one folder, a file under ``packages/<name>/`` and the file at its path with that
  folder taken out (a package's README, its copy of a model page).

A pair is a copy when at least ``PAIRED`` of the copy's sections pair with the original's by their
headings (``copies.declared_clusters``, the pairing the build will use) and those are alike on
average (shared word pairs): ``ALIKE_BY_PATH`` for a pair by path (a package's README says the same
things in its own words, release notes of the same name do not), ``ALIKE`` for files of one name in
other folders (a type of that name in another namespace may be another type).

Pairs then become rules as general as they stay true: a mirrored tree ``packages/azure/**`` ->
``**`` (or one folder of it) where at least ``TRUE_SHARE`` of the files the rule would fold are
copies, twins in several folders one ``**/README-PYPI.md`` -> ``**/README.md`` rule, rules
differing in one folder name one rule with ``*`` there when it declares nothing more; the other
pairs one rule per file when a copy by path, or when the text test misses some of their sections
(other copies it finds fold at every build anyway). Pairs linked already, by a manifest or through
other pairs (a copy of a copy), need no rule.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from docs_mcp.chunk.chunks import Chunk
from docs_mcp.corpus.copies import copy_groups, declared_clusters
from docs_mcp.corpus.docs_manifest import DocsManifest
from docs_mcp.corpus.facets import SettingsResolver
from docs_mcp.corpus.globs import compile_glob, fill
from docs_mcp.fix.repair_round import Round

__all__ = ["ALIKE", "ALIKE_BY_PATH", "PAIRED", "TRUE_SHARE", "CopyRule", "copy_rules", "propose_copy_rules"]

PAIRED = 0.5  # share of a copy's sections that pair with its original's by heading
ALIKE_BY_PATH = 0.25  # mean share of word pairs they have in common: a package's copy, a PyPI twin
ALIKE = 0.5  # the same for files of one name in other folders
TRUE_SHARE = 0.9  # share of the files a glob rule would fold (sections paired) that must be copies
_PYPI = re.compile(r"-pypi(?=\.\w+$)", re.IGNORECASE)
_LINK_TARGET = re.compile(r"\]\([^)]*\)|<?https?://[^\s)>]+>?")

Pair = tuple[str, str]  # (copy, original), paths relative to the docs root


@dataclass(frozen=True)
class CopyRule:
    """``pattern``'s files are copies of ``copy_of`` (both relative to the manifest's folder), with
    the evidence: the pairs it declares and their sections paired by heading."""

    pattern: str
    copy_of: str
    pairs: tuple[Pair, ...]
    sections: int  # sections of the copies that pair with their original's
    detected: int  # of those, the ones the detector's text test finds
    alike: float  # mean share of word pairs the paired sections have in common

    def evidence(self) -> str:
        """One line: how many files and sections, how alike."""
        files = f"{len(self.pairs)} file{'s' * (len(self.pairs) != 1)}"
        near = self.sections - self.detected
        return (
            f"copies of {self.copy_of}: {files} with their original here, {self.sections:,} sections "
            f"under the same headings ({self.detected:,} the text test finds, {near:,} near-copies it "
            f"misses), {self.alike:.0%} alike on average"
        )


def _words(chunk: Chunk) -> frozenset[tuple[str, str]]:
    # The evidence's own measure of "alike", shown to the user and judged against ALIKE; the
    # detector's test (copies.py) is tuned for ranking apart from it.
    words = re.findall(r"\w+", _LINK_TARGET.sub("]", chunk.markdown.lower()))
    return frozenset(pairwise(words)) or frozenset({(" ".join(words), "")})


def _alike(one: Chunk, other: Chunk) -> float:
    a, b = _words(one), _words(other)
    return len(a & b) / len(a | b)


@dataclass
class _Evidence:
    sections: int
    detected: int
    alike: float  # the sum over sections; divided by ``sections`` when shown
    copy_sections: int


class _Folder:
    """The files of one manifest, their chunks and the detector's groups, for judging pairs."""

    def __init__(
        self, manifest: DocsManifest, chunks: dict[str, list[Chunk]], groups: Sequence[Sequence[str]]
    ):
        self.prefix = f"{manifest.folder}/" if manifest.folder else ""
        self.chunks = chunks  # governed and other files under the folder, by path
        self.group_of = {cid: n for n, group in enumerate(groups) for cid in group}
        self._judged: dict[Pair, _Evidence] = {}

    def evidence(self, pair: Pair) -> _Evidence:
        if pair not in self._judged:
            copy, original = pair
            sections = declared_clusters([*self.chunks[copy], *self.chunks[original]], [pair])
            detected = sum(self.group_of.get(a.id, -1) == self.group_of.get(b.id, -2) for a, b in sections)
            alike = sum(_alike(a, b) for a, b in sections)
            self._judged[pair] = _Evidence(len(sections), detected, alike, len(self.chunks[copy]))
        return self._judged[pair]

    def is_copy(self, pair: Pair) -> bool:
        found = self.evidence(pair)
        # A package's copy or a PyPI twin is one by its path; files of one name elsewhere (a type
        # of the same name in another namespace) must say more in their text.
        alike = ALIKE_BY_PATH if pair[1] in _by_path(self.prefix, pair[0]) else ALIKE
        return (
            found.sections > 0
            and found.sections >= PAIRED * found.copy_sections
            and found.alike >= alike * found.sections
        )

    def resolve(self, pattern: str, copy_of: str, governed: Iterable[str]) -> list[Pair]:
        """The pairs a rule declares among the ``governed`` files (as the build resolves it)."""
        glob = compile_glob(pattern)
        pairs = []
        for path in governed:
            found = glob.captures(path[len(self.prefix) :])
            if found is not None:
                original = self.prefix + fill(copy_of, found)
                if original != path and original in self.chunks:
                    pairs.append((path, original))
        return pairs

    def rule(self, pattern: str, copy_of: str, pairs: Sequence[Pair]) -> CopyRule:
        judged = [self.evidence(pair) for pair in pairs]
        sections = sum(e.sections for e in judged)
        alike = sum(e.alike for e in judged) / sections if sections else 0.0
        return CopyRule(pattern, copy_of, tuple(pairs), sections, sum(e.detected for e in judged), alike)


def _by_path(prefix: str, path: str) -> list[str]:
    """The files ``path`` would be a copy of by its path alone: the file it twins (``-PYPI`` taken
    out of its name) and the one at its path with a ``packages/<name>/`` folder taken out."""
    local = path[len(prefix) :]
    folder, _, name = local.rpartition("/")
    found = []
    twin = _PYPI.sub("", name)
    if twin != name:
        found.append(prefix + (f"{folder}/{twin}" if folder else twin))
    parts = local.split("/")
    if "packages" in parts[:-2]:
        at = parts.index("packages")
        found.append(prefix + "/".join(parts[:at] + parts[at + 2 :]))
    return found


def _candidates(folder: _Folder, governed: Sequence[str], groups: Sequence[Sequence[str]]) -> set[Pair]:
    files = {cid: path for path, chunks in folder.chunks.items() for cid in (c.id for c in chunks)}
    mine = set(governed)
    found: set[Pair] = set()
    for group in groups:
        main = files.get(group[0])
        for cid in group[1:]:
            copy = files.get(cid)
            if main is not None and copy in mine and copy != main:
                found.add((copy, main))
    found.update((path, original) for path in governed for original in _by_path(folder.prefix, path))
    return {(copy, original) for copy, original in found if original in folder.chunks}


def _levels(pair: Pair, prefix: str) -> list[tuple[str, str]]:
    """The glob rules that could declare ``pair``, most general first: a mirrored tree (``X/**`` ->
    ``Y/**``, then one folder deeper each time), or a twin in every folder (``**/a`` -> ``**/b``)."""
    copy, original = (path[len(prefix) :].split("/") for path in pair)
    common = 0
    while common < min(len(copy), len(original)) - 1 and copy[common] == original[common]:
        common += 1
    tail = 0
    while tail < min(len(copy), len(original)) - common and copy[-1 - tail] == original[-1 - tail]:
        tail += 1
    if tail == 0:  # twins: the same folder, other names
        return [(f"**/{copy[-1]}", f"**/{original[-1]}")] if copy[:-1] == original[:-1] else []
    head_c, head_o, same = (
        copy[: len(copy) - tail],
        original[: len(original) - tail],
        copy[len(copy) - tail :],
    )
    return [("/".join([*head_c, *same[:k], "**"]), "/".join([*head_o, *same[:k], "**"])) for k in range(tail)]


def _merge(folder: _Folder, rules: list[CopyRule], governed: Sequence[str]) -> list[CopyRule]:
    """Rules that differ in one folder name only become one with ``*`` there, when it declares
    nothing the others did not (``packages/azure/**`` and ``packages/gcp/**``: ``packages/*/**``)."""
    merged = True
    while merged:
        merged = False
        keys: dict[tuple[str, str], list[CopyRule]] = defaultdict(list)
        for rule in rules:
            parts = rule.pattern.split("/")
            for index, part in enumerate(parts[:-1]):
                if part not in ("*", "**"):
                    keys["/".join([*parts[:index], "*", *parts[index + 1 :]]), rule.copy_of].append(rule)
        for (pattern, copy_of), same in sorted(keys.items(), key=lambda item: -len(item[1])):
            if len(same) < 2:
                break
            pairs = folder.resolve(pattern, copy_of, governed)
            if set(pairs) == {pair for rule in same for pair in rule.pairs}:
                rules = [rule for rule in rules if rule not in same] + [folder.rule(pattern, copy_of, pairs)]
                merged = True
                break
    return rules


class _Linked:
    """Files linked as copies, directly or through others (union-find): a pair whose files are
    linked already needs no rule, since the build folds copies of copies into one group."""

    def __init__(self, pairs: Iterable[Pair]) -> None:
        self._parent: dict[str, str] = {}
        self.link(pairs)

    def _root(self, path: str) -> str:
        while self._parent.get(path, path) != path:
            path = self._parent[path]
        return path

    def link(self, pairs: Iterable[Pair]) -> None:
        for copy, original in pairs:
            self._parent[self._root(copy)] = self._root(original)

    def linked(self, pair: Pair) -> bool:
        return self._root(pair[0]) == self._root(pair[1])


def copy_rules(
    manifest: DocsManifest,
    chunks: dict[str, list[Chunk]],
    governed: Sequence[str],
    groups: Sequence[Sequence[str]],
    declared: Iterable[Pair] = (),
) -> list[CopyRule]:
    """The ``copy_of`` rules ``manifest`` lacks: ``chunks`` holds the sections of every file under
    its folder (by path), ``governed`` the files it governs, ``groups`` the detector's copy groups
    (chunk ids), ``declared`` the pairs manifests declare already. Raises nothing."""
    folder = _Folder(manifest, chunks, groups)
    known = set(declared)
    linked = _Linked(known)
    copies = sorted(
        p for p in _candidates(folder, governed, groups) if not linked.linked(p) and folder.is_copy(p)
    )
    levels = {pair: _levels(pair, folder.prefix) for pair in copies}
    rules: list[CopyRule] = []
    for level in range(max(map(len, levels.values()), default=0)):
        by_rule: dict[tuple[str, str], list[Pair]] = defaultdict(list)
        for pair in copies:
            if level < len(levels[pair]):
                by_rule[levels[pair][level]].append(pair)
        # Rules onto the main tree first (fewer folders in copy_of): a package's copy of another
        # package's page is then linked through the main page already.
        for (pattern, copy_of), pairs in sorted(
            by_rule.items(), key=lambda item: (item[0][1].count("/"), item[0])
        ):
            if sum(not linked.linked(pair) for pair in pairs) < 2:
                continue  # one pair is a file's rule
            declares = folder.resolve(pattern, copy_of, governed)
            folded = [pair for pair in declares if pair in known or folder.evidence(pair).sections]
            true = [pair for pair in folded if pair in known or folder.is_copy(pair)]
            if len(true) >= TRUE_SHARE * len(folded):
                rules.append(folder.rule(pattern, copy_of, [pair for pair in declares if pair not in known]))
                linked.link(declares)
    # What no glob rule declares: a rule per file that is a copy by its path, or where the text test
    # misses sections (files of one name in other folders whose copies it finds fold at every build,
    # and a rule for each would be noise).
    for pair in copies:
        found = folder.evidence(pair)
        by_path = pair[1] in _by_path(folder.prefix, pair[0])
        if not linked.linked(pair) and (by_path or found.detected < found.sections):
            copy, original = (path[len(folder.prefix) :] for path in pair)
            rules.append(folder.rule(copy, original, [pair]))
            linked.link([pair])
    return sorted(_merge(folder, rules, governed), key=lambda rule: rule.pattern)


def propose_copy_rules(round_: Round) -> None:
    """Write the copy rules every valid manifest lacks into ``round_.workspace`` (one reason each,
    with its evidence)."""
    corpus = round_.corpus
    groups = copy_groups(corpus.chunks)  # the detector alone: what the text test finds
    resolver = SettingsResolver(corpus.manifests)
    sections = {file.path: [chunk for chunk in file.chunks if chunk.text.strip()] for file in corpus.files}
    governed: dict[str, list[str]] = defaultdict(list)
    for file in corpus.files:
        manifest = resolver.governing(file.path.rpartition("/")[0])
        if manifest is not None and manifest.valid:
            governed[manifest.folder].append(file.path)
    for folder, paths in sorted(governed.items()):
        manifest = corpus.manifests[folder]
        prefix = f"{folder}/" if folder else ""
        under = {path: chunks for path, chunks in sections.items() if path.startswith(prefix)}
        rules = copy_rules(manifest, under, paths, groups, corpus.declared_copies)
        data = round_.workspace.manifest(manifest.path)
        if not rules or data is None:
            continue
        data.setdefault("overrides", []).extend({"pattern": r.pattern, "copy_of": r.copy_of} for r in rules)
        round_.workspace.write_manifest(manifest.path, data, *(f"{r.pattern}: {r.evidence()}" for r in rules))
        round_.changes += len(rules)
