"""``.docs-mcp.json`` manifests: load, check against the JSON Schema, resolve per-file settings.

Rules (``notes/compat.md``): the nearest manifest above a file, walking up to the docs root, governs
it; manifests in different folders do not merge. Its ``strategy`` and ``metadata`` apply first, then
every override whose glob (relative to the manifest's folder) matches, in order: override metadata
merges over the base, an override strategy replaces the base strategy. An override's ``copy_of``
says its files are copies of others (``corpus/copy_rules.py`` resolves it).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path, PurePosixPath
from typing import Any, cast

import jsonschema

from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.corpus.globs import GlobError, compile_glob, glob_matches, template_problem
from docs_mcp.errors import Finding
from docs_mcp.limits import MAX_MANIFEST_BYTES, LimitExceeded, loads_json
from docs_mcp.parse.strategy import Strategy

__all__ = [
    "MANIFEST_NAME",
    "SCHEMA_RESOURCE",
    "DocsManifest",
    "Override",
    "TaxonomyEntry",
    "closest_key",
    "is_valid_manifest",
    "json_path",
    "load_manifest",
    "manifest_schema",
    "parse_manifest",
    "schema_findings",
    "unknown_keys",
]

MANIFEST_NAME = ".docs-mcp.json"
SCHEMA_RESOURCE = "schemas/docs-mcp.schema.json"


@dataclass(frozen=True)
class Override:
    """One ``overrides[]`` entry: settings for the files matching ``pattern``."""

    pattern: str
    strategy: Strategy | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    copy_of: str | None = None  # the path of each matching file's original, ``*``/``**`` filled in

    def matches(self, relative_path: str) -> bool:
        """True when ``relative_path`` (posix, relative to the manifest's folder) matches the glob."""
        return glob_matches(self.pattern, relative_path)


@dataclass(frozen=True)
class TaxonomyEntry:
    """A declared facet: its allowed values (None: any string), whether results collapse on it, which
    values are MCP resources and the words (``aliases``) that name a value in a search query."""

    values: tuple[str, ...] | None = None
    vector_collapse: bool = False
    resources: tuple[str, ...] = ()  # values marked ``mcp_resource``
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # value -> its ``aliases``


@dataclass(frozen=True)
class DocsManifest:
    """A loaded manifest. ``valid`` False means it broke the schema: it then governs its files with
    the built-in default, and only its well-formed ``metadata``/``taxonomy`` keys count as facets."""

    path: str  # posix, relative to the docs root
    folder: str  # posix folder of the manifest relative to the root; "" for the root
    valid: bool
    strategy: Strategy | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)
    taxonomy: Mapping[str, TaxonomyEntry] = field(default_factory=dict)
    instructions: str | None = None
    library_version: str | None = None  # the root manifest's libraryVersion
    embedding: Mapping[str, object] | None = None  # build's embedding settings (root manifest only)
    site: Mapping[str, object] | None = None  # the site generator's settings (root manifest only)
    overrides: tuple[Override, ...] = ()
    facet_keys: tuple[str, ...] = ()  # metadata and taxonomy keys, also salvaged from invalid manifests

    def settings_for(self, relative_path: str) -> FileSettings:
        """Resolve the settings of a governed file (``relative_path`` relative to the docs root)."""
        if not self.valid:
            # The manifest's own error is the finding to fix; a default-strategy warning per file
            # under it would only bury that error.
            return FileSettings(strategy=Strategy(), metadata={}, strategy_explicit=True)
        local = relative_path[len(self.folder) + 1 :] if self.folder else relative_path
        strategy = self.strategy
        metadata = dict(self.metadata)
        for override in self.overrides:
            if override.matches(local):
                if override.strategy is not None:
                    strategy = override.strategy
                metadata.update(override.metadata)
        return FileSettings(
            strategy=strategy or Strategy(), metadata=metadata, strategy_explicit=strategy is not None
        )


@cache
def manifest_schema() -> dict[str, Any]:
    """The manifest JSON Schema shipped with the package (published at ``schemas/`` in the repo)."""
    text = resources.files("docs_mcp.corpus").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = manifest_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    return cast(jsonschema.protocols.Validator, validator_class(schema))


def json_path(path: Iterable[Any]) -> str:
    """Render a jsonschema error path as ``overrides[2].strategy.chunk_by`` ("" for the root)."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_$][\w$-]*", str(part)):
            out += f".{part}" if out else str(part)
        else:
            out += f"[{json.dumps(part)}]"
    return out


def schema_findings(data: object, path: str, text: str = "") -> list[Finding]:
    """Check parsed manifest ``data`` against the schema: one error finding per violation, and one
    ``unknown-manifest-key`` warning per key the schema does not know (``text``, the manifest's
    source, gives the warning its line). Unknown keys are ignored, as the TypeScript reference
    ignores them, so manifests written for it work unchanged; the schema itself stays strict so
    that editors flag typos."""
    findings: list[Finding] = []
    errors = sorted(
        _validator().iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message)
    )
    key_lines = _key_lines(text)
    for error in errors:
        where = json_path(error.absolute_path) or "(manifest root)"
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = list(error.schema.get("properties", {}))
            findings.extend(
                _unknown_key(path, key_lines, where, str(key), known)
                for key in error.instance
                if key not in known
            )
            continue
        schema_at = "/".join(str(p) for p in error.absolute_schema_path)
        # jsonschema quotes the whole offending value: a megabyte of it must not become the message.
        problem = (
            error.message if len(error.message) <= _MAX_PROBLEM else error.message[:_MAX_PROBLEM] + "..."
        )
        if error.validator == "minimum" and where.endswith("max_chunk_size"):
            problem += " (MIN_MAX_CHUNK_SIZE: smaller chunks are a few words each)"
        findings.append(
            Finding(path, 0, "error", f"{where}: {problem} (schema: {schema_at})", "invalid-manifest")
        )
    return findings


_MAX_PROBLEM = 200  # characters of a schema error message quoted in a finding
_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def _key_lines(text: str) -> dict[str, int]:
    """The line where each object key (as written, JSON escapes included) first appears in ``text``;
    one pass, so that a manifest with many unknown keys costs linear time."""
    lines: dict[str, int] = {}
    line, scanned = 1, 0
    for match in _KEY.finditer(text):
        line += text.count("\n", scanned, match.start())
        scanned = match.start()
        lines.setdefault(match.group(1), line)
    return lines


def unknown_keys(data: object) -> list[tuple[tuple[str | int, ...], str, list[str]]]:
    """``(path of the object, key, known keys there)`` for every key the schema does not know."""
    found: list[tuple[tuple[str | int, ...], str, list[str]]] = []
    for error in _validator().iter_errors(data):
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = list(error.schema.get("properties", {}))
            where = tuple(error.absolute_path)
            found.extend((where, str(key), known) for key in error.instance if key not in known)
    return found


def is_valid_manifest(data: object) -> bool:
    """True when ``data`` breaks no rule of the schema (unknown keys aside, which are ignored)."""
    return not any(error.validator != "additionalProperties" for error in _validator().iter_errors(data))


def _unknown_key(path: str, key_lines: dict[str, int], where: str, key: str, known: list[str]) -> Finding:
    closest = closest_key(key, known)
    hint = f"did you mean {closest!r}?" if closest else f"known keys: {', '.join(known)}"
    place = "at the manifest root" if where == "(manifest root)" else f"in {where}"
    line = key_lines.get(json.dumps(key, ensure_ascii=False)[1:-1], 0)
    shown = repr(key) if len(key) <= _MAX_PROBLEM else repr(key[:_MAX_PROBLEM]) + "..."
    message = f"unknown key {shown} {place} is ignored; {hint}"
    return Finding(path, line, "warning", message, "unknown-manifest-key")


def closest_key(key: str, known: Iterable[str]) -> str | None:
    """The known key ``key`` most likely stands for: one containing it (or contained in it), else
    the closest spelling (difflib); None when nothing is close."""
    lowered = {candidate.lower(): candidate for candidate in known}
    wanted = key.lower()
    containing = sorted((c for c in lowered if len(wanted) >= 4 and (wanted in c or c in wanted)), key=len)
    if containing:
        return lowered[containing[0]]
    close = difflib.get_close_matches(wanted, list(lowered), n=1, cutoff=0.6)
    return lowered[close[0]] if close else None


def load_manifest(file: Path, relative_path: str) -> tuple[DocsManifest, list[Finding]]:
    """Read and check the manifest ``file`` (``relative_path``: its posix path under the docs root).

    Never raises for bad content: problems come back as ``invalid-manifest`` findings and the
    returned manifest is then marked invalid.
    """
    try:
        data = file.read_bytes()
    except OSError as error:
        message = f"cannot read manifest: {error.strerror or error}; check the file's permissions"
        manifest, _ = parse_manifest(None, relative_path)
        return manifest, [Finding(relative_path, 0, "error", message, "invalid-manifest")]
    return parse_manifest(data, relative_path)


def parse_manifest(data: bytes | None, relative_path: str) -> tuple[DocsManifest, list[Finding]]:
    """Check the bytes of a manifest against the schema and build it; ``None`` (unreadable) gives
    an invalid manifest. Never raises for bad content: problems are ``invalid-manifest`` findings."""
    folder = str(PurePosixPath(relative_path).parent)
    folder = "" if folder == "." else folder
    broken = DocsManifest(relative_path, folder, valid=False)
    if data is None:
        return broken, []
    if len(data) > MAX_MANIFEST_BYTES:
        message = (
            f"manifest is {len(data):,} bytes; at most {MAX_MANIFEST_BYTES:,} (MAX_MANIFEST_BYTES): "
            "a manifest holds settings, not content"
        )
        return broken, [Finding(relative_path, 0, "error", message, "invalid-manifest")]
    try:
        text = data.decode("utf-8-sig")
        parsed = loads_json(text)
    except UnicodeDecodeError as error:
        message = f"manifest is not UTF-8 (byte offset {error.start}); save it as UTF-8"
        return broken, [Finding(relative_path, 0, "error", message, "invalid-manifest")]
    except json.JSONDecodeError as error:
        message = f"manifest is not valid JSON: {error.msg} at column {error.colno}"
        return broken, [Finding(relative_path, error.lineno, "error", message, "invalid-manifest")]
    except LimitExceeded as error:
        message = f"manifest holds {error}; simplify it"
        return broken, [Finding(relative_path, error.line_in(text), "error", message, "invalid-manifest")]
    findings = schema_findings(parsed, relative_path, text) + _glob_findings(parsed, relative_path, text)
    if any(finding.severity == "error" for finding in findings):
        salvaged = DocsManifest(relative_path, folder, valid=False, facet_keys=_salvage_facet_keys(parsed))
        return salvaged, findings
    return _build(cast(dict[str, Any], parsed), relative_path, folder), findings


def _glob_findings(data: object, path: str, text: str) -> list[Finding]:
    """An ``invalid-manifest`` error for every override pattern that cannot be compiled, and every
    ``copy_of`` that cannot name a path for each file its pattern matches."""
    overrides = data.get("overrides") if isinstance(data, dict) else None
    findings = []
    for index, override in enumerate(overrides if isinstance(overrides, list) else []):
        pattern = override.get("pattern") if isinstance(override, dict) else None
        if not isinstance(pattern, str):
            continue  # the schema reports it
        try:
            compile_glob(pattern)
        except GlobError as error:
            message = f"overrides[{index}].pattern: {error}"
            findings.append(Finding(path, _line_of(text, pattern), "error", message, "invalid-manifest"))
            continue
        copy_of = override.get("copy_of")
        problem = template_problem(copy_of, pattern) if isinstance(copy_of, str) and copy_of else None
        if problem is not None:
            message = f"overrides[{index}].copy_of: {copy_of!r} cannot name the originals: {problem}"
            findings.append(Finding(path, _line_of(text, copy_of), "error", message, "invalid-manifest"))
    return findings


def _line_of(text: str, value: str) -> int:
    """The line where the JSON string ``value`` first appears in ``text`` (0: not found)."""
    at = text.find(json.dumps(value)[1:-1])
    return text.count("\n", 0, at) + 1 if at >= 0 else 0


def _salvage_facet_keys(data: object) -> tuple[str, ...]:
    # Keys of a broken manifest still count as declared, so one typo elsewhere in it does not turn
    # every metadata comment under it into an unknown-key error.
    if not isinstance(data, dict):
        return ()
    keys: list[str] = []
    for section in ("metadata", "taxonomy"):
        value = data.get(section)
        if isinstance(value, dict):
            keys.extend(str(k) for k in value)
    return tuple(dict.fromkeys(keys))


def _strategy(raw: Mapping[str, Any] | None) -> Strategy | None:
    if raw is None:
        return None
    keys = ("chunk_by", "max_chunk_size", "min_chunk_size", "allow_block_splits")
    return Strategy(**{k: raw[k] for k in keys if k in raw})


def _build(data: dict[str, Any], path: str, folder: str) -> DocsManifest:
    taxonomy: dict[str, TaxonomyEntry] = {}
    for key, entry in data.get("taxonomy", {}).items():
        properties = entry.get("properties")
        taxonomy[key] = TaxonomyEntry(
            values=tuple(properties) if properties is not None else None,
            vector_collapse=bool(entry.get("vector_collapse", False)),
            resources=tuple(v for v, p in (properties or {}).items() if p.get("mcp_resource")),
            aliases={v: tuple(p["aliases"]) for v, p in (properties or {}).items() if p.get("aliases")},
        )
    overrides = tuple(
        Override(o["pattern"], _strategy(o.get("strategy")), dict(o.get("metadata", {})), o.get("copy_of"))
        for o in data.get("overrides", [])
    )
    metadata = dict(data.get("metadata", {}))
    keys = [*metadata, *taxonomy, *(k for o in overrides for k in o.metadata)]
    return DocsManifest(
        path=path,
        folder=folder,
        valid=True,
        strategy=_strategy(data.get("strategy")),
        metadata=metadata,
        taxonomy=taxonomy,
        instructions=data.get("mcpServerInstructions"),
        library_version=data.get("libraryVersion"),
        embedding=data.get("embedding"),
        site=data.get("site"),
        overrides=overrides,
        facet_keys=tuple(dict.fromkeys(keys)),
    )
