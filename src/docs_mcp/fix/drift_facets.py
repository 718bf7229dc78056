"""Repairs of metadata drift: facet values that contradict the layout, dangling hints."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.corpus.docs_manifest import DocsManifest
from docs_mcp.fix.edits import Edit, file_override, front_matter_value, remove_comment
from docs_mcp.fix.layout import LANGUAGE, SCOPE, SDK_SPECIFIC, SdkFolder
from docs_mcp.fix.repair_round import Round


def repair_facets(round_: Round) -> None:
    """Files in an SDK folder whose ``language`` (or ``scope``) is not the folder's: the value is
    fixed where it is set (front matter, an override, the manifest), for the whole folder at once."""
    keys = [key for key in (LANGUAGE, SCOPE) if key in round_.corpus.facets]
    done: set[tuple[str, str, str]] = set()
    for file in round_.corpus.files:
        sdk = round_.layout.sdk_of(file.path)
        manifest = round_.corpus.governing(file.path)
        if sdk is None or manifest is None or not manifest.valid:
            continue
        expected = {LANGUAGE: sdk.language, SCOPE: SDK_SPECIFIC}
        metadata = _metadata(manifest, file.path)
        for key in keys:
            front = [d for d in file.metadata_declarations if d.origin == "frontmatter" and d.key == key]
            actual = front[-1].value if front else metadata.get(key)
            if actual == expected[key]:
                continue
            if front:
                _fix_front_matter(round_, file, front[-1].line, key, expected[key], sdk, actual)
            else:
                _fix_manifest(round_, manifest, file.path, key, expected[key], sdk, actual, done)
            _allow_value(round_, key, expected[key], done)


def _metadata(manifest: DocsManifest, path: str) -> Mapping[str, object]:
    """The metadata ``manifest`` gives ``path``: its own when no override sets any (no glob to match
    for each of thousands of files, every round), else what its overrides resolve to."""
    if not any(override.metadata for override in manifest.overrides):
        return manifest.metadata
    return manifest.settings_for(path).metadata


def _says(key: str, actual: object) -> str:
    return f"has no {key}" if actual is None else f"says {key} {actual!r}"


def _fix_front_matter(
    round_: Round, file: ChunkedFile, line: int, key: str, value: str, sdk: SdkFolder, actual: object
) -> None:
    if file.path in round_.edited or round_.manifests_only:
        return  # pages stay as they are: validate keeps showing the value
    edit = front_matter_value(round_.workspace.lines(file.path), line, value)
    if edit is None:
        return  # not a plain `key: value` line; validate keeps showing the value
    reason = (
        f"it is in the {sdk.language} SDK folder {sdk.folder} but its front matter (line {line}) "
        f"{_says(key, actual)}; set {key} {value!r}"
    )
    round_.workspace.edit_lines(file.path, [edit], [reason])
    round_.edited.add(file.path)
    round_.changes += 1


def _fix_manifest(
    round_: Round,
    manifest: DocsManifest,
    path: str,
    key: str,
    value: str,
    sdk: SdkFolder,
    actual: object,
    done: set[tuple[str, str, str]],
) -> None:
    local = path[len(manifest.folder) + 1 :] if manifest.folder else path
    setting = [n for n, o in enumerate(manifest.overrides) if key in o.metadata and o.matches(local)]
    inside = manifest.folder == sdk.folder or manifest.folder.startswith(sdk.folder + "/")
    target = f"overrides[{setting[-1]}]" if setting else ("metadata" if inside else "new")
    if (manifest.path, target, key) in done:
        return
    done.add((manifest.path, target, key))
    if setting and not _only_in(round_, manifest, setting[-1], sdk):
        target = "new"  # the override also sets other folders' files: one for this SDK goes after it
    data = round_.workspace.manifest(manifest.path)
    if data is None:
        return
    holder: dict[str, Any]
    if target == "metadata":
        holder = data.setdefault("metadata", {})
    elif target == "new":
        folder = sdk.folder[len(manifest.folder) + 1 :] if manifest.folder else sdk.folder
        holder = file_override(data, f"{folder}/**").setdefault("metadata", {})
    else:
        holder = data["overrides"][setting[-1]].setdefault("metadata", {})
    holder[key] = value
    where = "its manifest" if target != "new" else "no override for it"
    reason = (
        f"{sdk.folder} is the {sdk.language} SDK folder but {where} {_says(key, actual)}; set {key} {value!r}"
    )
    round_.workspace.write_manifest(manifest.path, data, reason)
    round_.changes += 1


def _only_in(round_: Round, manifest: DocsManifest, index: int, sdk: SdkFolder) -> bool:
    """True when override ``index`` of ``manifest`` matches files of ``sdk`` only."""
    override = manifest.overrides[index]
    for file in round_.corpus.files:
        if round_.corpus.governing(file.path) is not manifest:
            continue
        local = file.path[len(manifest.folder) + 1 :] if manifest.folder else file.path
        if override.matches(local) and not file.path.startswith(sdk.folder + "/"):
            return False
    return True


def _allow_value(round_: Round, key: str, value: str, done: set[tuple[str, str, str]]) -> None:
    """Add ``value`` to the taxonomy that lists ``key``'s values, when it is not there."""
    spec = round_.corpus.facets.get(key)
    if spec is None or spec.allowed is None or value in spec.allowed or ("taxonomy", key, value) in done:
        return
    done.add(("taxonomy", key, value))
    for manifest in sorted(round_.corpus.manifests.values(), key=lambda m: m.folder):
        entry = manifest.taxonomy.get(key)
        data = round_.workspace.manifest(manifest.path)
        if entry is None or entry.values is None or data is None:
            continue
        data["taxonomy"][key].setdefault("properties", {})[value] = {}
        reason = f"allow the {key} {value!r} in the taxonomy: an SDK folder is in that language"
        round_.workspace.write_manifest(manifest.path, data, reason)
        round_.changes += 1
        return


def repair_dangling_hints(round_: Round) -> None:
    """A section hint that applies to nothing is removed (it did nothing)."""
    by_path: dict[str, list[tuple[int, str]]] = defaultdict(list)
    if round_.manifests_only:
        return  # pages stay as they are: validate keeps reporting the hint
    for finding in round_.corpus.errors:
        if finding.rule == "dangling-hint" and finding.path not in round_.edited:
            by_path[finding.path].append((finding.line, finding.message))
    for path, found in sorted(by_path.items()):
        lines = round_.workspace.lines(path)
        edits: list[Edit] = []
        reasons = []
        for line, message in found:
            edit = remove_comment(lines, line)
            if edit is not None:
                edits.append(edit)
                reasons.append(f"remove the section hint at line {line}, which does nothing: {message}")
        if edits:
            round_.workspace.edit_lines(path, edits, reasons)
            round_.edited.add(path)
            round_.changes += len(edits)
