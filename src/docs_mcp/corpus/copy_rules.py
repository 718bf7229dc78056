"""Rules a manifest's overrides declare about files rather than settings, resolved against the files.

- ``copy_of``: the files ``pattern`` matches are copies of others (a ``README-PYPI.md`` twin, the
  per-package copies under ``packages/<name>/``); ``copy_of`` names each one's original, relative to
  the manifest's folder, its ``*`` and ``**`` segments filled with what the pattern's took
  (``globs.fill``). The ``(copy, original)`` pairs go to ``copies.copy_groups``, which folds their
  sections of the same headings whatever their texts.
- ``metadata.kind``: what the sections of the matching files are for (``chunk/kinds.py``; the value is
  checked with every metadata value, ``facets.py``).

Like every override, a rule applies to the files its manifest governs. A rule that applies to no
file (its glob matches none, or ``copy_of`` names no file for any match) does nothing: a warning
naming the manifest and the field says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from docs_mcp.chunk.kinds import KIND
from docs_mcp.corpus.docs_manifest import DocsManifest, Override
from docs_mcp.corpus.facets import SettingsResolver
from docs_mcp.corpus.globs import GlobError, compile_glob, fill
from docs_mcp.errors import Finding

__all__ = ["RULE_MATCHES_NOTHING", "DeclaredRules", "declared_rules"]

RULE_MATCHES_NOTHING = "rule-matches-nothing"


@dataclass(frozen=True)
class DeclaredRules:
    """The ``(copy, original)`` file pairs the manifests declare, and the warnings about rules that
    apply to nothing."""

    copies: tuple[tuple[str, str], ...] = ()
    findings: tuple[Finding, ...] = ()


def _is_rule(override: Override) -> bool:
    return override.copy_of is not None or KIND in override.metadata


def declared_rules(manifests: Mapping[str, DocsManifest], paths: Iterable[str]) -> DeclaredRules:
    """Resolve the ``copy_of`` and ``metadata.kind`` overrides of the valid ``manifests`` (by folder)
    against the indexed files ``paths`` (posix, relative to the docs root). Raises nothing."""
    ruled = {
        folder: manifest
        for folder, manifest in manifests.items()
        if manifest.valid and any(_is_rule(override) for override in manifest.overrides)
    }
    if not ruled:
        return DeclaredRules()
    files = sorted(set(paths))
    resolver = SettingsResolver(manifests)
    governed: dict[str, list[str]] = {folder: [] for folder in ruled}
    for path in files:
        manifest = resolver.governing(path.rpartition("/")[0])
        if manifest is not None and manifest.folder in governed:
            governed[manifest.folder].append(path)
    existing = set(files)
    copies: list[tuple[str, str]] = []
    findings: list[Finding] = []
    for folder, manifest in sorted(ruled.items()):
        for index, override in enumerate(manifest.overrides):
            if _is_rule(override):
                pairs, finding = _resolve(manifest, index, override, governed[folder], existing)
                copies.extend(pairs)
                findings.extend([finding] if finding is not None else [])
    return DeclaredRules(tuple(dict.fromkeys(copies)), tuple(findings))


def _resolve(
    manifest: DocsManifest, index: int, override: Override, governed: list[str], existing: set[str]
) -> tuple[list[tuple[str, str]], Finding | None]:
    """The copy pairs of one rule, and the warning when it applies to no file."""
    try:
        glob = compile_glob(override.pattern)
    except GlobError:
        return [], None  # reported as an invalid manifest
    prefix = f"{manifest.folder}/" if manifest.folder else ""
    where = f"overrides[{index}]"
    matched = [
        (path, found) for path in governed if (found := glob.captures(path[len(prefix) :])) is not None
    ]
    if not matched:
        what = "copy_of" if override.copy_of is not None else "metadata.kind"
        message = (
            f"{where}.pattern: {override.pattern!r} matches no file this manifest governs, so its "
            f"{what} does nothing; fix the glob or remove the override"
        )
        return [], Finding(manifest.path, 0, "warning", message, RULE_MATCHES_NOTHING)
    if override.copy_of is None:
        return [], None
    wanted = [(path, prefix + fill(override.copy_of, found)) for path, found in matched]
    pairs = [(path, original) for path, original in wanted if original != path and original in existing]
    if pairs:
        return pairs, None
    example = f"{wanted[0][0]} -> {wanted[0][1]}"
    message = (
        f"{where}.copy_of: {override.copy_of!r} names no other indexed file for any of the "
        f"{len(matched)} file(s) its pattern matches (e.g. {example}); fix it or remove the override"
    )
    return [], Finding(manifest.path, 0, "warning", message, RULE_MATCHES_NOTHING)
