"""The index manifest: what an index holds, written by ``build`` and read by everything that serves it.

A small JSON file beside ``.lancedb``. It has no wall-clock fields, so two builds of the same docs
with the same options write byte-identical manifests.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.errors import IndexCompatibilityError, IndexUnavailable
from docs_mcp.limits import loads_json
from docs_mcp.prompt_templates import PromptTemplate

__all__ = [
    "FORMAT_VERSION",
    "MANIFEST_FILE",
    "EmbeddingInfo",
    "FacetTaxonomy",
    "IndexManifest",
    "pick_example",
    "read_manifest",
    "write_manifest",
]

MANIFEST_FILE = "docs-mcp-index.json"
_SHOWN_CHARS = 60  # of a bad value's repr in an error
FORMAT_VERSION = 3  # 3: FTS with positions (phrase clauses); 2: FTS over `body` + `crumbs` (1: four columns)
# Versioning rule: a reader refuses any other format version, so a change an older reader would
# misread (table columns, chunk ids, the meaning of a key) bumps it. An *optional* key may be added
# within a version when ignoring it is a correct reading: a reader that does not know it keeps it in
# ``extra`` and serves as before. ``taxonomy`` (folding, aliases, resources) was added that way: an
# older reader of a newer index simply does not fold; a newer reader of an older index finds no key.


@dataclass(frozen=True)
class EmbeddingInfo:
    """The provider an index's vectors came from; the query embedder must match it."""

    provider: str
    model: str
    dimensions: int


@dataclass(frozen=True)
class FacetTaxonomy:
    """What the docs' taxonomy declares about one facet besides its values (all optional).

    ``vector_collapse``: hits that are one section in several values of this facet fold into one.
    ``aliases``: value -> words that name it in a query. ``resources``: values whose chunks are MCP
    resources.
    """

    vector_collapse: bool = False
    aliases: dict[str, list[str]] = field(default_factory=dict)
    resources: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "vector_collapse": self.vector_collapse,
            "aliases": {value: list(words) for value, words in sorted(self.aliases.items())},
            "resources": sorted(self.resources),
        }

    @classmethod
    def from_dict(cls, data: object) -> FacetTaxonomy:
        """Raises ``TypeError`` when ``data`` is not the shape ``to_dict`` writes."""
        entry = _mapping(data, "a taxonomy entry")
        collapse, aliases, resources = (
            entry.get("vector_collapse", False),
            _mapping(entry.get("aliases", {}), "aliases"),
            entry.get("resources", []),
        )
        if not isinstance(collapse, bool) or not _strings(resources):
            raise TypeError("vector_collapse must be a boolean and resources a list of strings")
        if not all(_strings(words) for words in aliases.values()):
            raise TypeError("aliases must map each value to a list of strings")
        return cls(collapse, {str(k): list(v) for k, v in aliases.items()}, list(resources))


@dataclass(frozen=True)
class IndexManifest:
    format_version: int
    docs_mcp_version: str
    description: str | None
    instructions: str | None
    facets: dict[str, list[str]]  # facet -> sorted values present in the index
    embedding: EmbeddingInfo | None
    chunk_count: int
    file_count: int
    content_hash: str
    source_commit: str | None = None
    taxonomy: dict[str, FacetTaxonomy] = field(default_factory=dict)  # only facets that declare something
    # The version of the documented library (``build --version``); an optional key, written only when
    # set, so an index without it reads as before and an older reader keeps it in ``extra``.
    version: str | None = None
    # The site generator the docs are the source of (generator, config, name, url): optional, within
    # format 3 (an older reader keeps it in ``extra``); absent for plain markdown.
    site: dict[str, Any] | None = None
    # The docs' prompt templates (``*.template.md``), by name: optional within format 3, written only
    # when there are any (an older reader keeps them in ``extra`` and serves no prompts).
    prompts: tuple[PromptTemplate, ...] = ()
    # A real heading and chunk id for the tool schema's examples (``pick_example``), so a server can
    # publish its schema before the table is opened: optional within format 3, absent in older indexes
    # (their servers publish no examples).
    examples: dict[str, str] | None = None
    # Groups of chunk ids that are copies of one section (``corpus.copies``), the main copy first:
    # search folds each group's hits into one. Optional within format 3, written by builds before
    # issue 34 only (an older reader keeps them in ``extra`` and shows every copy); read for those.
    copies: tuple[tuple[str, ...], ...] = ()
    # How many groups of copies the index holds: each member's row names its group's main copy
    # (``store.columns.COPY_COLUMN``), so a server reads groups with hits, never all of them. Optional
    # within format 3, written only when there are any (an older reader shows every copy).
    copy_groups: int = 0
    # Hybrid fusion calibrated on labelled questions (``build --calibrate``): ``text_weight`` and
    # ``vector_floor``. Optional within format 3, absent unless calibrated (searches use the defaults).
    fusion: dict[str, float] | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys of a newer minor writer, kept

    @property
    def identity(self) -> str:
        """A stable id of this build: content, format, embedding and docs-mcp version, hashed."""
        embedding = (
            f"{self.embedding.provider}/{self.embedding.model}/{self.embedding.dimensions}"
            if self.embedding
            else "none"
        )
        key = f"{self.format_version}|{self.docs_mcp_version}|{self.content_hash}|{embedding}"
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    def to_json(self) -> str:
        """The manifest as pretty, key-sorted JSON ending in a newline (deterministic)."""
        data: dict[str, Any] = {
            "format_version": self.format_version,
            "docs_mcp_version": self.docs_mcp_version,
            "description": self.description,
            "instructions": self.instructions,
            "facets": {k: list(v) for k, v in sorted(self.facets.items())},
            "embedding": (
                {
                    "provider": self.embedding.provider,
                    "model": self.embedding.model,
                    "dimensions": self.embedding.dimensions,
                }
                if self.embedding
                else None
            ),
            "chunk_count": self.chunk_count,
            "file_count": self.file_count,
            "content_hash": self.content_hash,
            "source_commit": self.source_commit,
            "taxonomy": {name: entry.to_dict() for name, entry in sorted(self.taxonomy.items())},
            **({"version": self.version} if self.version is not None else {}),
            **self.extra,
        }
        if self.site is not None:
            data["site"] = self.site
        if self.prompts:
            data["prompts"] = [prompt.to_dict() for prompt in self.prompts]
        if self.examples is not None:
            data["examples"] = dict(self.examples)
        if self.copies:
            data["copies"] = [list(group) for group in self.copies]
        if self.copy_groups:
            data["copy_groups"] = self.copy_groups
        if self.fusion is not None:
            data["fusion"] = dict(self.fusion)
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str, where: str = "index manifest") -> IndexManifest:
        """Parse a manifest. Raises ``IndexUnavailable`` when malformed, ``IndexCompatibilityError`` when
        its format version is not one this docs-mcp reads."""
        try:
            data = loads_json(text)  # depth-bounded: an edited manifest is an error, not a RecursionError
            if not isinstance(data, dict):
                raise TypeError("not a JSON object")
            version = data["format_version"]
            if not isinstance(version, int) or isinstance(version, bool):
                raise TypeError(f"format_version is {_shown(version)}, not a whole number")
            if version != FORMAT_VERSION:
                raise IndexCompatibilityError(
                    f"{where} has format version {version}; this docs-mcp reads version {FORMAT_VERSION}. "
                    "Rebuild the index with this docs-mcp: docs-mcp build --docs-dir DOCS --out OUT"
                )
            embedding = data["embedding"]
            known = {
                "format_version", "docs_mcp_version", "description", "instructions", "facets",
                "embedding", "chunk_count", "file_count", "content_hash", "source_commit", "taxonomy",
                "version", "site", "prompts", "examples", "copies", "copy_groups", "fusion",
            }  # fmt: skip
            site = data.get("site")
            examples = data.get("examples")
            return cls(
                format_version=int(version),
                docs_mcp_version=_text(data["docs_mcp_version"], "docs_mcp_version"),
                description=_text_or_none(data.get("description"), "description"),
                instructions=_text_or_none(data.get("instructions"), "instructions"),
                facets={
                    str(k): _string_list(values, f"facets.{k}")
                    for k, values in _mapping(data["facets"], "facets").items()
                },
                embedding=(
                    EmbeddingInfo(
                        _text(_mapping(embedding, "embedding")["provider"], "embedding.provider"),
                        _text(embedding["model"], "embedding.model"),
                        _count(embedding["dimensions"], "embedding.dimensions", least=1),
                    )
                    if embedding
                    else None
                ),
                chunk_count=_count(data["chunk_count"], "chunk_count"),
                file_count=_count(data["file_count"], "file_count"),
                content_hash=_text(data["content_hash"], "content_hash"),
                source_commit=_text_or_none(data.get("source_commit"), "source_commit"),
                taxonomy={
                    str(name): FacetTaxonomy.from_dict(entry)
                    for name, entry in _mapping(data.get("taxonomy", {}), "taxonomy").items()
                },
                version=_text_or_none(data.get("version"), "version"),
                site=dict(_mapping(site, "site")) if site is not None else None,
                prompts=tuple(PromptTemplate.from_dict(p) for p in _list(data.get("prompts", []), "prompts")),
                examples=_string_map(examples, "examples") if examples is not None else None,
                fusion=(
                    {str(k): float(v) for k, v in _mapping(data["fusion"], "fusion").items()}
                    if data.get("fusion") is not None
                    else None
                ),
                copies=tuple(
                    tuple(_string_list(group, "copies")) for group in _list(data.get("copies", []), "copies")
                ),
                copy_groups=_count(data.get("copy_groups", 0), "copy_groups"),
                extra={k: v for k, v in data.items() if k not in known},
            )
        except IndexCompatibilityError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise IndexUnavailable(
                f"{where} is corrupt ({error}); rebuild it: docs-mcp build --docs-dir DOCS --out OUT"
            ) from error


def _count(value: object, what: str, least: int = 0) -> int:
    """A whole number of at least ``least`` (a count): not a bool, a string or a float."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ValueError(f"{what} is {_shown(value)}, not a whole number of at least {least}")
    return value


def _shown(value: object) -> str:
    """``value`` as the error shows it: its repr, cut short (a 10 KB list is not a message)."""
    shown = repr(value)
    return shown if len(shown) <= _SHOWN_CHARS else shown[: _SHOWN_CHARS - 3] + "..."


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} is {_shown(value)}, not text")
    return value


def _mapping(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{what} is not an object")
    return value


def _list(value: object, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"{what} is not a list")
    return value


def _text_or_none(value: object, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{what} is {_shown(value)}, not text")
    return value


def _string_list(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{what} is not a list of strings")
    return [str(item) for item in value]


def _string_map(value: object, what: str) -> dict[str, str]:
    entries = _mapping(value, what)
    if not all(isinstance(item, str) for item in entries.values()):
        raise TypeError(f"{what} is not an object of strings")
    return {str(k): str(v) for k, v in entries.items()}


def pick_example(sections: Iterable[tuple[str, str, Sequence[str]]]) -> dict[str, str]:
    """The heading and id of one of ``sections`` (id, heading, breadcrumb) for the tool schema's
    examples, the same for every build of the same docs: the first id (in sorted order) of a
    subsection whose heading has two to six words, else the first id; empty for no sections."""
    rows = sorted(sections)
    for chunk_id, heading, crumb in rows:
        if crumb and 2 <= len(str(heading).split()) <= 6:
            return {"query": str(heading), "chunk_id": str(chunk_id)}
    return {"query": str(rows[0][1]), "chunk_id": str(rows[0][0])} if rows else {}


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def read_manifest(out_dir: Path) -> IndexManifest:
    """The manifest of the index in ``out_dir``.

    Raises ``IndexUnavailable`` if it is missing or corrupt, ``IndexCompatibilityError`` for another format.
    """
    path = Path(out_dir) / MANIFEST_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise IndexUnavailable(
            f"no docs-mcp index at {str(out_dir)!r} ({MANIFEST_FILE} is missing); "
            "create one with: docs-mcp build --docs-dir DOCS --out OUT"
        ) from None
    except OSError as error:
        raise IndexUnavailable(f"cannot read {path}: {error}") from error
    except UnicodeDecodeError as error:  # a torn or bit-flipped multi-byte character
        raise IndexUnavailable(
            f"{path} is corrupt (not UTF-8 text at byte {error.start}); "
            "rebuild it: docs-mcp build --docs-dir DOCS --out OUT"
        ) from None
    return IndexManifest.from_json(text, where=str(path))


def write_manifest(out_dir: Path, manifest: IndexManifest) -> None:
    """Write ``manifest`` into ``out_dir`` (a build's private temporary directory)."""
    (Path(out_dir) / MANIFEST_FILE).write_text(manifest.to_json(), encoding="utf-8")


def replace_manifest(out_dir: Path, manifest: IndexManifest) -> None:
    """Replace the manifest of the built index ``out_dir`` atomically (a reader sees the old or the
    new one, never half of one)."""
    target = Path(out_dir) / MANIFEST_FILE
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(manifest.to_json(), encoding="utf-8")
    os.replace(temporary, target)
