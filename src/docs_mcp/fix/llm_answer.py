"""What is sent to a model when bootstrapping, what it must answer, and how the answer is merged.

Sent: a compact outline (per folder: file counts, sizes, code languages, two example files with
their heading trees and one sample line; never whole files) and the heuristic draft manifests.
Answered: ``{"manifests": [{"folder", "manifest", "reasons"}]}``, every ``manifest`` valid under
the manifest JSON Schema. Merged: the model may add facets, choose strategies and overrides, and
write ``mcpServerInstructions``; the facts the layout proves (each SDK folder's ``language`` and
``scope``) stay as the heuristics found them.
"""

from __future__ import annotations

import copy
import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import jsonschema

from docs_mcp.corpus.docs_manifest import manifest_schema
from docs_mcp.fix.bootstrap import ManifestDraft
from docs_mcp.fix.layout import LANGUAGE, SCOPE, Layout
from docs_mcp.fix.outline import FileOutline
from docs_mcp.limits import loads_json

OUTLINE_BUDGET = 24_000  # characters of outline JSON sent to the model
EXAMPLES_PER_FOLDER = 2
HEADINGS_PER_EXAMPLE = 12

INSTRUCTIONS = """You configure docs-mcp, which indexes a folder of markdown documentation for coding \
agents and serves it through the search_docs and get_doc tools. You get an outline of the folder \
(never whole files) and the manifests (.docs-mcp.json) that heuristics drafted. Answer with JSON: \
{"manifests": [{"folder": ..., "manifest": {...}, "reasons": [...]}]}, one entry per draft folder, \
each manifest valid under the .docs-mcp.json schema (version "1"). Keep the language and scope values \
of the drafts: the folder layout proves them. You may add facets where the layout shows them (metadata \
keys, declared in the root manifest's taxonomy), choose chunk_by where a draft's choice is ambiguous \
(h2 keeps a method or a topic whole; file suits small single-topic pages; deeper headings suit \
monolithic READMEs) and write mcpServerInstructions for the root (2 to 4 sentences: what the docs \
cover, how to use search_docs and get_doc, which filters exist). Give one short reason per decision."""


def answer_schema() -> dict[str, Any]:
    """The JSON Schema of the model's answer; its manifests are the manifest schema itself."""
    manifest = copy.deepcopy(manifest_schema())
    definitions = manifest.pop("$defs")
    manifest.pop("$schema", None)
    manifest.pop("$id", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "manifests": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "folder": {"type": "string"},
                        "manifest": {"$ref": "#/$defs/manifest"},
                        "reasons": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["folder", "manifest"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["manifests"],
        "additionalProperties": False,
        "$defs": {**definitions, "manifest": manifest},
    }


def compact_outline(outlines: Sequence[FileOutline], layout: Layout, drafts: Sequence[ManifestDraft]) -> str:
    """The outline JSON sent to the model, cut to ``OUTLINE_BUDGET`` characters."""
    by_folder: dict[str, list[FileOutline]] = defaultdict(list)
    for outline in outlines:
        by_folder[outline.folder].append(outline)
    ranked = sorted(by_folder.items(), key=lambda item: (-len(item[1]), item[0]))
    base = {
        "files": len(outlines),
        "sdk_folders": [
            {"folder": s.folder, "language": s.language, "why": s.evidence} for s in layout.sdk_folders
        ],
        "drafts": [{"folder": d.folder, "manifest": d.data} for d in drafts],
    }
    folders = [_folder_summary(name, files) for name, files in ranked]
    while True:
        text = json.dumps({**base, "folders": folders}, ensure_ascii=False)
        if len(text) <= OUTLINE_BUDGET or not folders:
            return text
        folders = folders[: max(0, len(folders) * 3 // 4 - 1)]


def _folder_summary(name: str, files: list[FileOutline]) -> dict[str, Any]:
    languages = Counter(info for outline in files for info in outline.fence_languages.elements())
    biggest = max(files, key=lambda outline: outline.size)
    examples = [biggest, *([files[0]] if files[0] is not biggest else [])][:EXAMPLES_PER_FOLDER]
    return {
        "folder": name or ".",
        "files": len(files),
        "median_chars": int(statistics.median(outline.size for outline in files)),
        "largest_chars": max(outline.size for outline in files),
        "code": [language for language, _ in languages.most_common(3)],
        "examples": [
            {
                "path": example.path,
                "chars": example.size,
                "headings": ["#" * h.level + " " + h.text for h in example.headings[:HEADINGS_PER_EXAMPLE]],
                "sample": example.sample,
            }
            for example in examples
        ],
    }


def parse_answer(
    content: str, drafts: Sequence[ManifestDraft]
) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """The model's manifests by folder. Raises ``ValueError`` saying why the answer is unusable:
    not JSON, not the answer schema (a manifest breaking the manifest schema), or a folder with no draft."""
    try:
        answer = loads_json(content)  # a model's answer is text from outside
    except ValueError as error:
        raise ValueError(f"the answer is not JSON ({error})") from error
    problem = next(iter(jsonschema.Draft202012Validator(answer_schema()).iter_errors(answer)), None)
    if problem is not None:
        where = "/".join(str(part) for part in problem.absolute_path) or "the answer"
        raise ValueError(f"{where} breaks the manifest schema: {problem.message}")
    folders = {draft.folder for draft in drafts}
    proposed: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for entry in answer["manifests"]:
        folder = entry["folder"].strip("/").removeprefix("./")
        folder = "" if folder == "." else folder
        if folder not in folders:
            raise ValueError(f"the answer has a manifest for {entry['folder']!r}, a folder with no draft")
        proposed[folder] = (entry["manifest"], list(entry.get("reasons", [])))
    return proposed


def merge(
    drafts: Sequence[ManifestDraft], proposed: dict[str, tuple[dict[str, Any], list[str]]]
) -> list[ManifestDraft]:
    """The drafts with the model's choices merged in (see the module docstring). Raises nothing."""
    merged = [ManifestDraft(d.folder, copy.deepcopy(d.data), list(d.reasons)) for d in drafts]
    root = merged[0]
    declared = set(root.data.get("taxonomy", {}))
    new_values: dict[str, set[str]] = defaultdict(set)
    for draft in merged:
        if draft.folder not in proposed:
            continue
        manifest, reasons = proposed[draft.folder]
        draft.reasons.extend(f"(model) {reason}" for reason in reasons)
        if draft is root and isinstance(manifest.get("mcpServerInstructions"), str):
            draft.data["mcpServerInstructions"] = manifest["mcpServerInstructions"]
        for key, entry in manifest.get("taxonomy", {}).items() if draft is root else ():
            if key not in declared:
                root.data.setdefault("taxonomy", {})[key] = entry
                declared.add(key)
        for key, value in manifest.get("metadata", {}).items():
            if key not in (LANGUAGE, SCOPE):
                draft.data.setdefault("metadata", {})[key] = value
                new_values[key].add(value)
        if "strategy" in manifest:
            draft.data["strategy"] = manifest["strategy"]
        if "overrides" in manifest:
            draft.data["overrides"] = [_keep_layout(o) for o in manifest["overrides"]]
    for key, values in new_values.items():
        if key not in declared:
            root.data.setdefault("taxonomy", {})[key] = {
                "properties": {value: {} for value in sorted(values)}
            }
            root.reasons.append(f"declare the facet {key} the model proposed ({', '.join(sorted(values))})")
        elif (entry := root.data["taxonomy"][key]).get("properties") is not None:
            for value in values:
                entry["properties"].setdefault(value, {})
    return merged


def _keep_layout(override: dict[str, Any]) -> dict[str, Any]:
    """An override without the layout facets (they come from the folder, not the model)."""
    kept = dict(override)
    metadata = {k: v for k, v in override.get("metadata", {}).items() if k not in (LANGUAGE, SCOPE)}
    if metadata:
        kept["metadata"] = metadata
    else:
        kept.pop("metadata", None)
    return kept
