"""``kind`` rules: what the sections of a folder are for, written down where the recogniser is sure.

The build recognises each section's role (``chunk/kinds.py``); a manifest rule makes it explicit and
stable (the next generator run or recogniser change does not move it) and gives a folder's pages the
recogniser misses the folder's kind. Per manifest, the files it governs are read as a tree:

- a folder (its whole subtree) whose files are ``UNIFORM`` one kind, at least ``MIN_FILES`` of
  them, gets one rule, ``folder/**`` (the manifest's own folder: ``**``), when a rule can say each
  of its other files: no file mixes kinds, or has sections of another kind beside unrecognised ones;
- inside it, a subfolder uniformly of another kind gets its own rule, and a file whose sections are
  all of another kind (an ``...Error`` page among models) a rule for that file, after the folder's;
  a file with no recognised section (an options page among the models) is a ``guide``, when at
  most ``GUIDES`` of the folder's files are;
- a file of the folder's kind with some unrecognised sections (a model page's extra section) takes
  the folder's kind for all of them.

A file whose kind the manifest already gives is the manifest's decision: it needs no rule, so ``fix``
run on its own output proposes nothing. New rules go before the manifest's first override that sets
a kind (so that one keeps winning for its files), else at the end.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.kinds import GUIDE, KIND, recognise
from docs_mcp.corpus.docs_manifest import DocsManifest
from docs_mcp.corpus.facets import SettingsResolver
from docs_mcp.fix.repair_round import Round

__all__ = ["GUIDES", "MIN_FILES", "UNIFORM", "KindRule", "kind_rules", "propose_kind_rules"]

MIN_FILES = 3  # a folder rule stands for at least this many files; fewer are the recogniser's
UNIFORM = 0.8  # share of a folder's files of its kind (the others get rules of their own)
GUIDES = 0.05  # at most this share of them with no recognised section (each a guide)
MIXED = "mixed"  # a file whose sections are of several kinds: no rule can say it


@dataclass(frozen=True)
class KindRule:
    """``pattern`` (relative to the manifest's folder) is ``kind``; ``evidence`` says why."""

    pattern: str
    kind: str
    evidence: str
    files: tuple[str, ...] = field(default=(), compare=False)  # the files it is for (root-relative)


@dataclass(frozen=True)
class _Kind:
    """What a file's sections are: one kind, ``MIXED`` or None (none recognised); ``partial`` when
    some of its sections have none."""

    kind: str | None
    partial: bool


@dataclass
class _Folder:
    """A folder of a manifest's tree: its files' kinds and its subfolders."""

    files: dict[str, _Kind] = field(default_factory=dict)  # by local path
    folders: dict[str, _Folder] = field(default_factory=dict)

    def every(self) -> dict[str, _Kind]:
        found = dict(self.files)
        for folder in self.folders.values():
            found.update(folder.every())
        return found


def _file_kind(file: ChunkedFile, recognised: bool) -> _Kind:
    kinds = recognise(file.chunks) if recognised else [c.metadata.get(KIND) for c in file.chunks]
    found = {kind for kind in kinds if kind is not None}
    kind = found.pop() if len(found) == 1 else (MIXED if found else None)
    return _Kind(kind, None in kinds)


def _uniform(kinds: Sequence[_Kind]) -> str | None:
    """The kind ``kinds`` are uniformly, or None: most of them, at least ``MIN_FILES``, and every
    other one a file a rule can say (all its sections of another kind, or none recognised: a guide)."""
    counted = Counter(found.kind for found in kinds if found.kind is not None)
    if not counted or len(kinds) < MIN_FILES:
        return None
    kind, count = counted.most_common(1)[0]
    sayable = all(
        found.kind in (kind, None) or (found.kind != MIXED and not found.partial) for found in kinds
    )
    # Pages with nothing recognised are a few stray guides at most: more say the folder is not
    # one of generated pages, whose next page a folder rule would wrongly say.
    guides = sum(found.kind is None for found in kinds)
    uniform = count >= UNIFORM * len(kinds) and guides <= GUIDES * len(kinds)
    return kind if sayable and uniform and kind != MIXED else None


def _own_rule(found: _Kind, inherited: str) -> tuple[str, str] | None:
    """The kind and reason of a file's rule inside a folder of kind ``inherited``, or None."""
    if found.kind is None:
        return GUIDE, f"no section of it is recognised, its folder's are {inherited}: a guide"
    if found.kind != inherited:
        return found.kind, f"its sections are {found.kind}, its folder's {inherited}"
    return None


def _rules(folder: _Folder, path: str, inherited: str | None, prefix: str) -> list[KindRule]:
    every = folder.every()
    kind = _uniform(list(every.values()))
    rules: list[KindRule] = []
    if kind is not None and kind != inherited:
        others = Counter(GUIDE if k.kind is None else k.kind for k in every.values() if k.kind != kind)
        same = sum(k.kind == kind for k in every.values())
        evidence = f"the recogniser finds {same:,} of its {len(every):,} files {kind}"
        if others:
            evidence += (
                " (" + ", ".join(f"{n} {k}" for k, n in sorted(others.items())) + ": rules of their own)"
            )
        files = tuple(prefix + local for local in every)
        rules.append(KindRule(f"{path}/**" if path else "**", kind, evidence, files))
        inherited = kind
    for name, sub in sorted(folder.folders.items()):
        rules.extend(_rules(sub, f"{path}/{name}" if path else name, inherited, prefix))
    if inherited is not None:
        for local, found in sorted(folder.files.items()):
            own = _own_rule(found, inherited)
            if own is not None:
                rules.append(KindRule(local, own[0], own[1], (prefix + local,)))
    return rules


def kind_rules(manifest: DocsManifest, files: Sequence[ChunkedFile]) -> list[KindRule]:
    """The kind rules ``manifest`` lacks for the ``files`` it governs (chunked under it): a rule
    whose every file the manifest already gives a kind is left out."""
    prefix = f"{manifest.folder}/" if manifest.folder else ""
    # A manifest that sets kinds hides the recogniser's view in the chunks: ask it again.
    sets_kinds = KIND in manifest.metadata or any(KIND in o.metadata for o in manifest.overrides)
    root = _Folder()
    for file in files:
        *parents, _ = (local := file.path[len(prefix) :]).split("/")
        node = root
        for part in parents:
            node = node.folders.setdefault(part, _Folder())
        node.files[local] = _file_kind(file, sets_kinds)
    proposed = _rules(root, "", None, prefix)
    if not sets_kinds:
        return proposed
    # A file the manifest gives a kind is its decision (a rule fix wrote, or the user's): rules are
    # for the files it leaves to the recogniser.
    decided = {file.path for file in files if KIND in manifest.settings_for(file.path).metadata}
    return [rule for rule in proposed if any(path not in decided for path in rule.files)]


def propose_kind_rules(round_: Round) -> None:
    """Write the kind rules every valid manifest lacks into ``round_.workspace`` (one reason each)."""
    resolver = SettingsResolver(round_.corpus.manifests)
    governed: dict[str, list[ChunkedFile]] = {}
    for file in round_.corpus.files:
        manifest = resolver.governing(file.path.rpartition("/")[0])
        if manifest is not None and manifest.valid:
            governed.setdefault(manifest.folder, []).append(file)
    for folder, files in sorted(governed.items()):
        manifest = round_.corpus.manifests[folder]
        rules = kind_rules(manifest, files)
        data = round_.workspace.manifest(manifest.path)
        if not rules or data is None:
            continue
        overrides: list[dict[str, Any]] = data.setdefault("overrides", [])
        at = next((n for n, o in enumerate(overrides) if KIND in o.get("metadata", {})), len(overrides))
        overrides[at:at] = [{"pattern": rule.pattern, "metadata": {KIND: rule.kind}} for rule in rules]
        reasons = [f"{rule.pattern}: kind {rule.kind}: {rule.evidence}" for rule in rules]
        round_.workspace.write_manifest(manifest.path, data, *reasons)
        round_.changes += len(rules)
