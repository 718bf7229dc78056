"""Bootstrap: manifests for a docs folder that has none, from its layout and outlines.

A root manifest declares the taxonomy (``language`` and ``scope`` when there are SDK folders),
drafts ``mcpServerInstructions`` and sets the strategy of the files outside SDK folders; every SDK
folder gets a manifest of its own with its ``language`` and ``scope: sdk-specific`` (manifests do
not merge, so each repeats its strategy), and the overrides ``strategy.py`` chooses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from docs_mcp.corpus.docs_manifest import MANIFEST_NAME
from docs_mcp.fix.layout import (
    API,
    GLOBAL_GUIDE,
    LANGUAGE,
    SCOPE,
    SDK_PARENTS,
    SDK_SPECIFIC,
    Layout,
    taxonomy,
)
from docs_mcp.fix.outline import FileOutline
from docs_mcp.fix.strategy_choice import Decision, choose


@dataclass
class ManifestDraft:
    """A manifest to write, with one reason per decision in it."""

    folder: str  # "" for the root
    data: dict[str, Any]
    reasons: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return f"{self.folder}/{MANIFEST_NAME}" if self.folder else MANIFEST_NAME


def draft_manifests(
    outlines: Sequence[FileOutline],
    layout: Layout,
    max_size: int,
    subject: str | None = None,
    fallback: str | None = None,
) -> list[ManifestDraft]:
    """The manifests bootstrap proposes, root first; ``subject`` names the docs in the instructions
    (None: the layout does, else ``fallback``, the folder's name; see ``corpus_name.py``). Raises
    nothing."""
    root = ManifestDraft("", {"version": "1"})
    root.data["mcpServerInstructions"] = draft_instructions(outlines, layout, subject, fallback)
    root.reasons.append("mcpServerInstructions drafted from the folder's layout and titles")
    outside = [o for o in outlines if layout.sdk_of(o.path) is None]
    drafts = [root]
    if outside:
        _strategies(root, choose(outside, "", max_size))
    if layout.sdk_folders:
        if outside:
            root.data["metadata"] = {SCOPE: GLOBAL_GUIDE}
            root.reasons.append(f"the {len(outside)} files outside SDK folders are global guides (scope)")
        root.data["taxonomy"] = taxonomy(layout)
        root.reasons.append(
            f"declare the facets {LANGUAGE} ({', '.join(layout.languages)}: one value per SDK folder, "
            f"collapsing near-identical results across languages) and {SCOPE} ({SDK_SPECIFIC} inside "
            f"SDK folders, {GLOBAL_GUIDE} elsewhere)"
            + (
                f", and {API} ({', '.join(layout.apis)}: the folders holding each API's SDKs)"
                if layout.apis
                else ""
            )
        )
    for sdk in layout.sdk_folders:
        draft = ManifestDraft(sdk.folder, {"version": "1"})
        draft.data["metadata"] = layout.sdk_metadata(sdk)
        draft.reasons.append(f"{sdk.folder} is the {sdk.language} SDK ({sdk.files} files): {sdk.evidence}")
        inside = [o for o in outlines if o.path.startswith(sdk.folder + "/")]
        _strategies(draft, choose(inside, sdk.folder, max_size))
        drafts.append(draft)
    for draft in drafts:
        _order_keys(draft.data)
    return drafts


def _strategies(draft: ManifestDraft, decisions: list[Decision]) -> None:
    for decision in decisions:
        if decision.pattern is None:
            draft.data["strategy"] = decision.strategy
        else:
            draft.data.setdefault("overrides", []).append(
                {"pattern": decision.pattern, "strategy": decision.strategy}
            )
        where = f"{decision.pattern}: " if decision.pattern else ""
        draft.reasons.append(where + decision.reason)


def _order_keys(data: dict[str, Any]) -> None:
    order = ["$schema", "version", "mcpServerInstructions", "strategy", "metadata", "taxonomy", "overrides"]
    items = sorted(data.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order))
    data.clear()
    data.update(items)


def draft_instructions(
    outlines: Sequence[FileOutline], layout: Layout, subject: str | None = None, fallback: str | None = None
) -> str:
    """Instructions for agents, from the layout: what the docs cover and how to search them
    (``subject`` names the docs, else the layout, else ``fallback``)."""
    subject = subject or _subject(layout, fallback)
    text = (
        f"Documentation of {subject} ({len(outlines)} pages). Search it with search_docs before answering "
        "questions about it, then read a result's whole section (and its neighbours) with get_doc and "
        "its chunk_id."
    )
    if layout.sdk_folders:
        text += (
            f" SDK docs exist in {', '.join(layout.languages)}: pass language to search_docs to get that "
            "SDK's pages together with the global guides."
        )
    return text


def _subject(layout: Layout, fallback: str | None) -> str:
    """The SDKs' parent folders ("the dub and mistral APIs"), else ``fallback`` (the folder's name).
    Never a page title: in a plain SDK folder the only H1s are sections such as "Development"."""
    parents = sorted(
        {
            sdk.parent
            for sdk in layout.sdk_folders
            if sdk.parent and PurePosixPath(sdk.parent).name not in SDK_PARENTS
        }
    )
    if parents and all("/" not in parent for parent in parents):
        names = [PurePosixPath(parent).name for parent in parents]
        return (
            "the "
            + (" and ".join([", ".join(names[:-1]), names[-1]]) if len(names) > 1 else names[0])
            + " APIs"
        )
    return fallback or "this project"
