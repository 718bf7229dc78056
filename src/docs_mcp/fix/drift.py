"""Repair: the drift between manifests and the docs they govern, each fixed by the smallest change.

One :func:`repair` round looks at a corpus loaded with the proposed files and, in this order:

- unknown manifest keys: renamed to the key they most likely mean, else removed;
- files on the catch-all strategy: their manifest declares it (a root manifest when none governs);
- sections that outgrew their strategy (over ``max_chunk_size``, so cut at deeper headings only
  because of their size, which moves chunk ids when they shrink again): a section hint when one
  section of the file outgrew it, else a deeper strategy for that one file (``drift_chunks.py``);
- blocks cut inside (a generated table over the limit): the strategy says so is expected;
- facet values that contradict the layout and dangling hints (``drift_facets.py``).

A markdown file is edited at most once a round (the next round sees its new line numbers); the
caller repeats rounds until one changes nothing.
"""

from __future__ import annotations

from docs_mcp.corpus.docs_manifest import MANIFEST_NAME, unknown_keys
from docs_mcp.corpus.findings import SummaryFinding
from docs_mcp.corpus.loader import DEFAULT_STRATEGY_RULE
from docs_mcp.fix.drift_chunks import repair_block_splits, repair_outgrown_sections
from docs_mcp.fix.drift_facets import repair_dangling_hints, repair_facets
from docs_mcp.fix.edits import fix_unknown_key, with_key_after
from docs_mcp.fix.repair_round import Round


def repair(round_: Round) -> int:
    """Make one round of repairs in ``round_.workspace``; returns how many changes it made."""
    for step in (
        repair_unknown_keys,
        repair_default_strategies,
        repair_outgrown_sections,
        repair_block_splits,
        repair_facets,
        repair_dangling_hints,
    ):
        step(round_)
    return round_.changes


def repair_unknown_keys(round_: Round) -> None:
    for manifest in round_.corpus.manifests.values():
        data = round_.workspace.manifest(manifest.path)
        if data is None:
            continue
        reasons = [fix_unknown_key(data, where, key, known) for where, key, known in unknown_keys(data)]
        if reasons:
            round_.workspace.write_manifest(manifest.path, data, *reasons)
            round_.changes += len(reasons)


def repair_default_strategies(round_: Round) -> None:
    summary = next(
        (
            f
            for f in round_.corpus.warnings
            if isinstance(f, SummaryFinding) and f.rule == DEFAULT_STRATEGY_RULE
        ),
        None,
    )
    if summary is None:
        return
    by_manifest: dict[str, list[str]] = {}
    for path in summary.paths:
        by_manifest.setdefault(round_.manifest_path(path) or MANIFEST_NAME, []).append(path)
    for manifest_path, paths in sorted(by_manifest.items()):
        data = round_.workspace.manifest(manifest_path) or {"version": "1"}
        if "strategy" in data:
            continue  # declared since the corpus was loaded
        with_key_after(data, "strategy", {"chunk_by": "h2"}, after="version")
        what = f"{len(paths)} files" if len(paths) != 1 else paths[0]
        round_.workspace.write_manifest(
            manifest_path,
            data,
            f"declare the strategy {what} already use (the catch-all h2), so validate stops warning",
        )
        round_.changes += 1
