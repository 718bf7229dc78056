"""Repairs of chunking drift: sections that outgrew their strategy, blocks cut inside."""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath
from typing import Any

from docs_mcp.chunk.chunking import ChunkedFile, Oversized
from docs_mcp.corpus.docs_manifest import DocsManifest
from docs_mcp.fix.edits import Edit, file_override, section_hint, strategy_json
from docs_mcp.fix.repair_round import Round
from docs_mcp.parse.hints import SECTION_HINT

# A file with this many chunks or more, one section of which outgrew, gets a section hint; a
# smaller file, or one with several outgrown sections, a deeper strategy of its own.
HINT_MIN_CHUNKS = 4
# Files of one folder that need the same override share one (a glob) from this many on.
FOLDER_GLOB_MIN = 3


def repair_outgrown_sections(round_: Round) -> None:
    for file in round_.corpus.files:
        records = [o for o in file.oversized if o.how == "headings"]
        outgrown = _outermost(records)
        if not outgrown or file.path in round_.edited:
            continue
        manifest = round_.corpus.governing(file.path)
        in_file = manifest is None or file.strategy != manifest.settings_for(file.path).strategy
        lines = round_.workspace.lines(file.path)
        hintable = [o for o in outgrown if o.heading_line and not _has_section_hint(lines, o.heading_line)]
        hint = in_file or (len(outgrown) == 1 and len(file.chunks) >= HINT_MIN_CHUNKS)
        if hint and hintable == outgrown and not round_.manifests_only:
            edits: list[Edit] = [
                section_hint(lines, o.heading_line, f"h{_depth(o, records)}") for o in outgrown
            ]
            reasons = [_hint_reason(lines, o) for o in outgrown]
            round_.workspace.edit_lines(file.path, edits, reasons)
            round_.edited.add(file.path)
            round_.changes += len(edits)
        elif manifest is not None and (not in_file or round_.manifests_only):
            depth = min(_depth(o, records) for o in outgrown)
            strategy = {**strategy_json(file.strategy), "chunk_by": f"h{depth}"}
            count = f"{len(outgrown)} of its sections are" if len(outgrown) > 1 else "its section is"
            local = _local(manifest, file.path)
            reason = (
                f"{local}: {count} over max_chunk_size {outgrown[0].max_size:,} and cut at {'#' * depth} "
                f"headings only because of their size; chunk it by h{depth} so its chunk ids stay stable"
            )
            _set_override(round_, manifest, local, strategy, reason)


def _outermost(records: list[Oversized]) -> list[Oversized]:
    """The outgrown sections that are not inside another outgrown section."""
    if not records:
        return []
    level = min(o.level for o in records)
    return [o for o in records if o.level == level]


def _depth(outgrown: Oversized, records: list[Oversized]) -> int:
    """The heading level ``outgrown`` really splits at: past levels where the cut left one piece
    holding nearly all of it (a file cut at its only ``#`` title, then at its ``##`` sections)."""
    depth = outgrown.depth
    size = outgrown.size
    while True:
        inner = [o for o in records if o.level == depth and o.line >= outgrown.line and o.size >= 0.9 * size]
        if not inner:
            return depth
        depth, size = inner[0].depth, inner[0].size


def _has_section_hint(lines: list[str], heading_line: int) -> bool:
    line = heading_line - 1
    while line >= 1 and (not lines[line - 1].strip() or lines[line - 1].lstrip().startswith("<!--")):
        if SECTION_HINT in lines[line - 1]:
            return True
        line -= 1
    return False


def _hint_reason(lines: list[str], outgrown: Oversized) -> str:
    heading = lines[outgrown.heading_line - 1].strip().lstrip("#").strip()
    return (
        f"section {heading!r} (line {outgrown.heading_line}) is {outgrown.size:,} characters, over "
        f"max_chunk_size {outgrown.max_size:,}, and cut at its {'#' * outgrown.depth} headings only because "
        "of its size; a section hint declares that cut so its chunk ids stay stable"
    )


def repair_block_splits(round_: Round) -> None:
    """Files with a ``split-inside-block`` warning: their strategy says such cuts are expected."""
    pending: dict[tuple[str, str], list[ChunkedFile]] = defaultdict(list)
    warned = {f.path for f in round_.corpus.warnings if f.rule == "split-inside-block"}
    for file in round_.corpus.files:
        manifest = round_.corpus.governing(file.path)
        if file.path not in warned or manifest is None:
            continue
        if file.strategy != manifest.settings_for(file.path).strategy:
            continue  # set in the file itself; validate keeps reporting it
        local = _local(manifest, file.path)
        index = _last_strategy_override(manifest, local)
        if index is not None:
            _allow_in_override(round_, manifest, index, file)
        else:
            pending[manifest.path, str(PurePosixPath(local).parent)].append(file)
    for (manifest_path, folder), files in sorted(pending.items()):
        manifest = round_.corpus.governing(files[0].path)
        assert manifest is not None and manifest.path == manifest_path
        glob = "*.md" if folder == "." else f"{folder}/*.md"
        shared = len(files) >= FOLDER_GLOB_MIN and not any(o.pattern == glob for o in manifest.overrides)
        for file in files[:1] if shared else files:
            strategy = {**strategy_json(file.strategy), "allow_block_splits": True}
            where = glob if shared else _local(manifest, file.path)
            _set_override(
                round_, manifest, where, strategy, _split_reason(where, files if shared else [file])
            )


def _split_reason(where: str, files: list[ChunkedFile]) -> str:
    cut = [o for file in files for o in file.oversized if o.how == "inside-block"]
    biggest = max(cut, key=lambda o: o.size)
    what = f"{len(files)} files hold" if len(files) > 1 else "it holds"
    return (
        f"{where}: {what} a block over max_chunk_size {biggest.max_size:,} (the {biggest.block} at line "
        f"{biggest.block_line} of a {biggest.size:,}-character section) that is cut inside; declare that "
        "expected (allow_block_splits)"
    )


def _last_strategy_override(manifest: DocsManifest, local: str) -> int | None:
    matching = [n for n, o in enumerate(manifest.overrides) if o.strategy is not None and o.matches(local)]
    return matching[-1] if matching else None


def _allow_in_override(round_: Round, manifest: DocsManifest, index: int, file: ChunkedFile) -> None:
    data = round_.workspace.manifest(manifest.path)
    if data is None:
        return
    override = data["overrides"][index]
    if override.get("strategy", {}).get("allow_block_splits"):
        return  # done earlier this round, for another file it matches
    override["strategy"]["allow_block_splits"] = True
    round_.workspace.write_manifest(manifest.path, data, _split_reason(override["pattern"], [file]))
    round_.changes += 1


def _set_override(
    round_: Round, manifest: DocsManifest, pattern: str, strategy: dict[str, Any], reason: str
) -> None:
    data = round_.workspace.manifest(manifest.path)
    if data is None:
        return
    override = file_override(data, pattern)
    if override.get("strategy") == strategy:
        return
    override["strategy"] = strategy
    round_.workspace.write_manifest(manifest.path, data, reason)
    round_.changes += 1


def _local(manifest: DocsManifest, path: str) -> str:
    return path[len(manifest.folder) + 1 :] if manifest.folder else path
