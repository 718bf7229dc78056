"""What the docs are called, for the server instructions ``fix`` drafts.

In order: the ``--description`` given (so instructions and the index's description agree), the site
config's name (``site_name``, Docusaurus ``title``, Sphinx ``project``), the packages' own metadata
(``package.json`` ``name``, ``pyproject.toml`` ``[project] name``, ``go.mod``'s module, ``Cargo.toml``;
read in the docs folder, the folders above a generic one such as ``docs/``, and each SDK folder: one
name when they agree once language suffixes are dropped), the H1 that opens the root index page or
README (``index.md``/``README.md``, markdown ``# Title`` or an HTML ``<h1>``); else None, and the
layout (``bootstrap.py``) or the folder's own name (:func:`folder_name`, above generic names like
``docs``) names it. Never a heading such as "Development" or
"Contributing", nor a CONTRIBUTING, changelog, licence or code of conduct page's title: they say how
to work on the project, not what its docs cover.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

from docs_mcp.fix.outline import FileOutline

__all__ = ["NOT_A_NAME", "corpus_name", "folder_name", "package_names"]

_INDEX_PAGES = ("index.md", "index.mdx", "README.md", "readme.md", "intro.md", "intro.mdx")
_README_PAGES = ("README.md", "readme.md", "../README.md")
# Pages whose title never names the docs (matched against the file name, case-insensitively).
NOT_A_NAME = re.compile(
    r"(?i)(contributing|changelog|changes|history|release[-_ ]notes|code[-_ ]of[-_ ]conduct"
    r"|licen[cs]e|security)"
)
# Headings that are a section of a README, never the name of what it documents.
_SECTION_WORDS = re.compile(
    r"(?i)^(development|contributing|contributions?|contributors|table of contents|contents|"
    r"installation|install|usage|getting started|introduction|overview|summary|readme|index|home|"
    r"documentation|docs|license|changelog)$"
)
# Folder names that say where docs are kept, not what they are about.
_GENERIC_FOLDERS = frozenset(
    {
        "docs",
        "doc",
        "documentation",
        "content",
        "contents",
        "src",
        "pages",
        "site",
        "website",
        "en",
        "corpus",
        "source",
        "sources",
        "md",
        "markdown",
        "guide",
        "guides",
        "manual",
        "book",
    }
)
_LANGUAGE_AFFIXES = re.compile(
    r"(?i)^(python|py|go|golang|node|js|ts)[-_]|[-_](python|py|go|golang|node|nodejs|js|ts|typescript"
    r"|javascript|java|kotlin|ruby|php|csharp|dotnet|rust|swift|sdk|client|api)$"
)
_HTML_H1 = re.compile(r"<h1\b[^>]*>(.*?)</h1\s*>", re.IGNORECASE | re.DOTALL)
_FIRST_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$|<h([1-6])\b[^>]*>(.*?)</h\3\s*>", re.M | re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_ATTRIBUTES = re.compile(r"\s*\{[^{}]*\}\s*$")
_MAX_NAME = 80
_MAX_NAMES = 3


def corpus_name(
    root: Path,
    outlines: Sequence[FileOutline],
    site_name: str | None,
    description: str | None,
    package_folders: Iterable[str] = (),
) -> str | None:
    """The corpus's name, or None when nothing names it (see the module docstring); ``package_folders``
    are the SDK folders (relative to ``root``) whose package metadata counts too. Raises nothing."""
    for given in (description, site_name):
        if given and given.strip():
            return given.strip().rstrip(".")
    packages = package_names([root, *_generic_ancestors(root), *(root / f for f in package_folders)])
    if packages:
        return packages
    by_path = {outline.path for outline in outlines}
    for name in (*_INDEX_PAGES, *_README_PAGES):
        title = _page_h1(root / name) if (name in by_path or name.startswith("..")) else None
        if title:
            return title
    return None


def package_names(folders: Iterable[Path]) -> str | None:
    """The name the packages in ``folders`` agree on (language affixes dropped), else their names
    joined (at most a few); None when no folder holds package metadata. Raises nothing."""
    names = list(dict.fromkeys(name for folder in folders if (name := _package_name(folder))))
    if not names:
        return None
    stems = {_LANGUAGE_AFFIXES.sub("", name.rpartition("/")[2]).lower() for name in names}
    if len(stems) == 1 and len(names) > 1:
        return stems.pop()
    return ", ".join(names[:_MAX_NAMES])


def _package_name(folder: Path) -> str | None:
    """The package name the metadata in ``folder`` declares, if any."""
    try:
        if (folder / "package.json").is_file():
            data = json.loads((folder / "package.json").read_text(encoding="utf-8"))
            name = data.get("name") or data.get("description") if isinstance(data, dict) else None
            return str(name).strip() or None if name else None
        for manifest, table in (("pyproject.toml", ("project", "tool.poetry")), ("Cargo.toml", ("package",))):
            if (folder / manifest).is_file():
                data = tomllib.loads((folder / manifest).read_text(encoding="utf-8"))
                for path in table:
                    section: object = data
                    for part in path.split("."):
                        section = section.get(part, {}) if isinstance(section, dict) else {}
                    if isinstance(section, dict) and isinstance(section.get("name"), str):
                        return str(section["name"]).strip() or None
        if (folder / "go.mod").is_file():
            for line in (folder / "go.mod").read_text(encoding="utf-8").splitlines():
                if line.startswith("module "):
                    return line.split()[1].strip('"') if len(line.split()) > 1 else None
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return None


def _generic_ancestors(root: Path) -> list[Path]:
    """The folders above ``root`` while each below is a generic one (``repo/docs`` -> ``repo``)."""
    found: list[Path] = []
    folder = root.absolute()
    while folder.name.lower() in _GENERIC_FOLDERS and folder.parent != folder:
        folder = folder.parent
        found.append(folder)
    return found


def folder_name(root: Path) -> str | None:
    """The name of ``root``, or of the first folder above it that is not generic (``repo/docs``)."""
    folder = root.absolute()
    while folder.name.lower() in _GENERIC_FOLDERS and folder.parent != folder:
        folder = folder.parent
    return folder.name or None


def _page_h1(path: Path) -> str | None:
    """The title of a page whose first heading is an H1 (never a README section's name)."""
    if NOT_A_NAME.search(path.name):
        return None
    try:
        text = path.read_text(encoding="utf-8")[:200_000]
    except (OSError, UnicodeDecodeError):
        return None
    first = _FIRST_HEADING.search(_without_code(text))
    if first is None or (first.group(1) or "h" + (first.group(3) or "")) not in ("#", "h1"):
        return None
    title = html.unescape(_TAG.sub("", first.group(2) or first.group(4) or ""))
    title = _ATTRIBUTES.sub("", " ".join(title.replace("`", "").split()))[:_MAX_NAME]
    return title if title and not _SECTION_WORDS.match(title) else None


def _without_code(text: str) -> str:
    """``text`` with fenced code blocks blanked (a ``# comment`` there is no heading)."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        stripped = line.lstrip()
        marker = stripped[:3]
        if not fence and marker in ("```", "~~~"):
            fence = marker
            out.append("")
        elif fence and stripped.startswith(fence):
            fence = ""
            out.append("")
        else:
            out.append("" if fence else line)
    return "\n".join(out)
