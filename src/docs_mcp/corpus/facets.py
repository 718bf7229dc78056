"""The taxonomy of a docs folder's manifests: its facets, the settings that govern each file, and the
checks of every metadata value against them."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.chunk.kinds import KIND, KINDS
from docs_mcp.corpus.docs_manifest import DocsManifest, TaxonomyEntry
from docs_mcp.errors import Finding

__all__ = [
    "UNKNOWN_KIND_RULE",
    "FacetSpec",
    "SettingsResolver",
    "check_declarations",
    "check_manifest_metadata",
    "facets_of",
    "merged_taxonomy",
]


@dataclass(frozen=True)
class FacetSpec:
    """A filterable metadata key. ``allowed`` lists the taxonomy's values; None: any string value."""

    name: str
    allowed: tuple[str, ...] | None


class SettingsResolver:
    """Nearest-manifest lookup, cached per folder: the corpora have thousands of files in few folders."""

    def __init__(self, manifests: Mapping[str, DocsManifest]) -> None:
        self._manifests = manifests
        self._governing: dict[str, DocsManifest | None] = {}

    def governing(self, folder: str) -> DocsManifest | None:
        if folder not in self._governing:
            found = self._manifests.get(folder)
            if found is None and folder:
                parent = folder.rpartition("/")[0]
                found = self.governing(parent)
            self._governing[folder] = found
        return self._governing[folder]

    def settings(self, path: str) -> FileSettings:
        manifest = self.governing(path.rpartition("/")[0])
        return manifest.settings_for(path) if manifest is not None else FileSettings()


def facets_of(manifests: Iterable[DocsManifest]) -> dict[str, FacetSpec]:
    names: set[str] = set()
    allowed: dict[str, list[str]] = {}
    for manifest in manifests:
        names.update(manifest.facet_keys)
        for key, entry in manifest.taxonomy.items():
            if entry.values is not None:
                allowed.setdefault(key, []).extend(entry.values)
    return {
        name: FacetSpec(name, tuple(sorted(set(allowed[name]))) if name in allowed else None)
        for name in sorted(names)
    }


def merged_taxonomy(manifests: Iterable[DocsManifest]) -> dict[str, TaxonomyEntry]:
    merged: dict[str, TaxonomyEntry] = {}
    for manifest in manifests:
        for key, entry in manifest.taxonomy.items():
            seen = merged.get(key)
            if seen is None:
                merged[key] = entry
                continue
            values = (
                None
                if seen.values is None and entry.values is None
                else (tuple(sorted({*(seen.values or ()), *(entry.values or ())})))
            )
            aliases = {
                value: tuple(dict.fromkeys([*seen.aliases.get(value, ()), *entry.aliases.get(value, ())]))
                for value in sorted({*seen.aliases, *entry.aliases})
            }
            merged[key] = TaxonomyEntry(
                values=values,
                vector_collapse=seen.vector_collapse or entry.vector_collapse,
                resources=tuple(sorted({*seen.resources, *entry.resources})),
                aliases=aliases,
            )
    return dict(sorted(merged.items()))


def _value_problem(key: str, value: object, facets: Mapping[str, FacetSpec]) -> tuple[str, str] | None:
    """(rule, message) when ``key: value`` breaks the taxonomy, else None."""
    if not isinstance(value, str):
        kind = "null" if value is None else type(value).__name__
        return (
            "invalid-metadata",
            f"metadata value of {key!r} must be a string, got {kind} {value!r}; quote it",
        )
    spec = facets.get(key)
    if key == KIND:
        return _kind_problem(value, spec)
    if spec is None:
        return "unknown-metadata-key", (
            f"unknown metadata key {key!r}; declare it in a .docs-mcp.json taxonomy (or metadata) "
            "so it becomes a search facet"
        )
    if spec.allowed is not None and value not in spec.allowed:
        return "metadata-value-not-allowed", (
            f"metadata value {value!r} is not allowed for {key!r}; allowed: {', '.join(spec.allowed)} "
            "(add it to the taxonomy's properties to allow it)"
        )
    return None


UNKNOWN_KIND_RULE = "unknown-kind"


def _kind_problem(value: str, spec: FacetSpec | None) -> tuple[str, str] | None:
    """``kind`` is built in (``chunk/kinds.py``), declared or not: one of its values, or one a
    taxonomy lists for it."""
    declared = spec.allowed if spec is not None and spec.allowed is not None else ()
    known = (*KINDS, *(other for other in declared if other not in KINDS))
    if value in known:
        return None
    close = difflib.get_close_matches(value.lower(), known, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return UNKNOWN_KIND_RULE, (
        f"unknown kind {value!r}; {hint}the kinds are {', '.join(known)} "
        "(a taxonomy's kind properties may add more)"
    )


def check_declarations(chunked: ChunkedFile, facets: Mapping[str, FacetSpec]) -> list[Finding]:
    # The chunker may already have reported a non-string value; say it once per line.
    reported = {f.line for f in chunked.findings if f.rule == "invalid-metadata"}
    findings = []
    for declaration in chunked.metadata_declarations:
        problem = _value_problem(declaration.key, declaration.value, facets)
        if problem is None or (problem[0] == "invalid-metadata" and declaration.line in reported):
            continue
        findings.append(Finding(chunked.path, declaration.line, "error", problem[1], problem[0]))
    return findings


def check_manifest_metadata(manifest: DocsManifest, facets: Mapping[str, FacetSpec]) -> list[Finding]:
    entries = [(f"metadata.{k}", k, v) for k, v in manifest.metadata.items()]
    for index, override in enumerate(manifest.overrides):
        entries.extend((f"overrides[{index}].metadata.{k}", k, v) for k, v in override.metadata.items())
    findings = []
    for where, key, value in entries:
        problem = _value_problem(key, value, facets)
        if problem is not None:
            findings.append(Finding(manifest.path, 0, "error", f"{where}: {problem[1]}", problem[0]))
    return findings
