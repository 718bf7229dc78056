"""Facets from the layout: which folders are SDKs, in which language, and what is global.

Shared by ``fix`` (which proposes them as manifests) and by ``load_corpus`` (a folder with no
manifest at all gets them in memory, so a raw SDK folder builds with ``language`` and ``scope``
facets, and filter inference works without running ``fix`` first).

A folder named after a language (``typescript``, ``py``, ``golang``, ...) is an SDK folder when the
layout says so: it sits beside other language folders (``dub/{go,python,typescript}``), under an
``sdks/`` (``sdks/<lang>/``), or its code fences are mostly in that language. A file belongs to
the outermost SDK folder above it (``language`` = the folder's language, ``scope`` =
``sdk-specific``); every other file is a ``global-guide``. When the SDK folders sit in two or more
parent folders (``dub/{go,python}``, ``mistral/{python,typescript}``), each parent holds the clients
of one API and names it: ``api`` = the parent folder's name, so "in the dub python sdk" can name it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Protocol

LANGUAGE = "language"
SCOPE = "scope"
API = "api"
SDK_SPECIFIC = "sdk-specific"
GLOBAL_GUIDE = "global-guide"

# Folder names and code fence info strings -> the language facet value.
LANGUAGE_NAMES: Mapping[str, str] = {
    "typescript": "typescript",
    "ts": "typescript",
    "tsx": "typescript",
    "javascript": "javascript",
    "js": "javascript",
    "jsx": "javascript",
    "python": "python",
    "py": "python",
    "go": "go",
    "golang": "go",
    "java": "java",
    "kotlin": "kotlin",
    "kt": "kotlin",
    "csharp": "csharp",
    "cs": "csharp",
    "dotnet": "csharp",
    "php": "php",
    "ruby": "ruby",
    "rb": "ruby",
    "swift": "swift",
    "rust": "rust",
    "rs": "rust",
    "terraform": "terraform",
    "hcl": "terraform",
}
SDK_PARENTS = frozenset({"sdks", "sdk", "clients", "client-libraries", "libraries", "libs"})
# A language folder without siblings or an sdks/ parent must show it in its code: this share of
# its fences (and at least MIN_FENCES of them).
FENCE_SHARE = 0.6
MIN_FENCES = 5


class Outlined(Protocol):
    """What layout inference reads of a file (``fix``'s ``FileOutline`` has it; so does ``FileFences``)."""

    @property
    def path(self) -> str: ...  # posix, relative to the docs root

    @property
    def fence_languages(self) -> Counter[str]: ...


@dataclass(frozen=True)
class FileFences:
    """A file's path and the info strings of its code fences, read without parsing it."""

    path: str
    fence_languages: Counter[str] = field(default_factory=Counter)


# A fence opener at the start of a line and its info string (the language).
_FENCE = re.compile(r"^[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*([^\s`{]+)", re.MULTILINE)


def fences_of(path: str, text: str) -> FileFences:
    """The fence languages of ``text`` by a line scan: openers only, closers have no info string."""
    return FileFences(path, Counter(match.lower() for match in _FENCE.findall(text)))


def _folder(path: str) -> str:
    parent = str(PurePosixPath(path).parent)
    return "" if parent == "." else parent


@dataclass(frozen=True)
class SdkFolder:
    """A folder holding one SDK's docs."""

    folder: str  # posix, relative to the docs root
    language: str
    files: int
    fences: int  # code fences in its files
    fences_in_language: int  # of those, fences in its language
    evidence: str  # why it is an SDK folder, for the proposal's reasoning

    @property
    def parent(self) -> str:
        parent = str(PurePosixPath(self.folder).parent)
        return "" if parent == "." else parent


@dataclass(frozen=True)
class Layout:
    sdk_folders: tuple[SdkFolder, ...]

    def sdk_of(self, path: str) -> SdkFolder | None:
        """The SDK folder a file (posix path) belongs to, if any."""
        return next((sdk for sdk in self.sdk_folders if path.startswith(sdk.folder + "/")), None)

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(sorted({sdk.language for sdk in self.sdk_folders}))

    def api_of(self, sdk: SdkFolder) -> str | None:
        """The API ``sdk`` is a client of: its parent folder's name, when the SDK folders sit in two or
        more parents (one parent is the whole corpus: its name says nothing a filter could use)."""
        parents = {folder.parent for folder in self.sdk_folders}
        return PurePosixPath(sdk.parent).name if len(parents) > 1 and sdk.parent else None

    @property
    def apis(self) -> tuple[str, ...]:
        return tuple(sorted({api for sdk in self.sdk_folders if (api := self.api_of(sdk))}))

    def sdk_metadata(self, sdk: SdkFolder) -> dict[str, str]:
        """The facet values of ``sdk``'s files: its language, ``scope`` and, when known, its API."""
        api = self.api_of(sdk)
        return {LANGUAGE: sdk.language, SCOPE: SDK_SPECIFIC, **({API: api} if api else {})}


def infer_layout(outlines: Iterable[Outlined]) -> Layout:
    """The SDK folders of a docs folder, outermost first. Raises nothing."""
    files = list(outlines)
    folders = {folder for outline in files for folder in _ancestors(_folder(outline.path))}
    found: list[SdkFolder] = []
    for folder in sorted(folders, key=lambda f: (f.count("/"), f)):
        name = PurePosixPath(folder).name.lower()
        if name not in LANGUAGE_NAMES or any(folder.startswith(sdk.folder + "/") for sdk in found):
            continue
        language = LANGUAGE_NAMES[name]
        inside = [outline for outline in files if outline.path.startswith(folder + "/")]
        fences = Counter(
            LANGUAGE_NAMES.get(info, info)
            for outline in inside
            for info in outline.fence_languages.elements()
        )
        total, matching = sum(fences.values()), fences[language]
        evidence = _evidence(folder, folders, total, matching)
        if evidence:
            found.append(SdkFolder(folder, language, len(inside), total, matching, evidence))
    return Layout(tuple(found))


def _ancestors(folder: str) -> list[str]:
    parts = folder.split("/") if folder else []
    return ["/".join(parts[: n + 1]) for n in range(len(parts))]


def _evidence(folder: str, folders: set[str], fences: int, matching: int) -> str:
    """Why ``folder`` (named after a language) holds an SDK; "" when nothing says so."""
    path = PurePosixPath(folder)
    parent = "" if str(path.parent) == "." else str(path.parent)
    siblings = sorted(
        PurePosixPath(f).name
        for f in folders
        if f != folder
        and str(PurePosixPath(f).parent) == (parent or ".")
        and PurePosixPath(f).name.lower() in LANGUAGE_NAMES
    )
    code = (
        f"{matching} of its {fences} code blocks are in that language" if fences else "it has no code blocks"
    )
    if siblings:
        return f"it sits beside other language folders ({', '.join(siblings)}); {code}"
    if path.parent.name.lower() in SDK_PARENTS:
        return f"it is under {path.parent.name}/; {code}"
    if fences >= MIN_FENCES and matching >= FENCE_SHARE * fences:
        return code
    return ""


def taxonomy(layout: Layout) -> dict[str, Any]:
    """The taxonomy a layout declares: ``language`` (folding across languages), ``scope`` and, with
    SDK folders of several APIs, ``api``."""
    declared: dict[str, Any] = {
        LANGUAGE: {"vector_collapse": True, "properties": {language: {} for language in layout.languages}},
        SCOPE: {"properties": {GLOBAL_GUIDE: {}, SDK_SPECIFIC: {}}},
    }
    if layout.apis:
        declared[API] = {"properties": {api: {} for api in layout.apis}}
    return declared


def layout_manifests(layout: Layout, paths: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The facets of ``layout`` as manifest data by folder ("" for the root): the root declares the
    taxonomy (and ``scope: global-guide`` when some files are outside every SDK folder), each SDK
    folder its ``language``, ``scope: sdk-specific`` and ``api`` when known. Empty when there is no
    SDK folder. No strategy: the files keep the built-in default."""
    if not layout.sdk_folders:
        return {}
    root: dict[str, Any] = {"version": "1", "taxonomy": taxonomy(layout)}
    if any(layout.sdk_of(path) is None for path in paths):
        root["metadata"] = {SCOPE: GLOBAL_GUIDE}
    manifests = {"": root}
    for sdk in layout.sdk_folders:
        manifests[sdk.folder] = {"version": "1", "metadata": layout.sdk_metadata(sdk)}
    return manifests
