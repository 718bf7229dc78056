"""Whether a docs folder is the source of a site generator (someone else's pages): then ``fix``
never edits a page, even when asked to write hints inline.

A sign is enough, recognised or not by the corpus loader: a generator's config in the folder or in
one of the few folders above it (a repository keeps ``mkdocs.yml`` beside ``docs/``, Astro's config
three levels above ``src/content/docs/``), a table of contents (``SUMMARY.md``), pages only a
generator reads (``.mdx``, ``.rst``), or a generator's syntax outside code in a page (``fix.outline``
finds it while scanning). Configs are only looked for, never read.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from docs_mcp.fix.outline import FileOutline

__all__ = ["ANCESTORS", "CONFIG_NAMES", "generator_sign"]

# Files and folders that only a site generator's source holds (Hugo's config/_default included).
CONFIG_NAMES = (
    "mkdocs.yml",
    "mkdocs.yaml",
    "docusaurus.config.js",
    "docusaurus.config.ts",
    "docusaurus.config.mjs",
    "docusaurus.config.cjs",
    ".vitepress",
    "astro.config.mjs",
    "astro.config.js",
    "astro.config.ts",
    "astro.config.cjs",
    "hugo.toml",
    "hugo.yaml",
    "hugo.json",
    "config/_default",
    "book.toml",
    "docs.json",
    "mint.json",
    ".gitbook.yaml",
    "SUMMARY.md",
    "conf.py",
    "theme.config.js",
    "theme.config.jsx",
    "theme.config.tsx",
    "_meta.json",
)
ANCESTORS = 3  # folders above the docs folder where a config may sit
_REPOSITORY_ROOT = ".git"
_GENERATOR_PAGES = (".mdx", ".rst")


def generator_sign(root: Path, outlines: Iterable[FileOutline], recognised: str | None = None) -> str | None:
    """Why ``root`` is a site generator's source, in a few words; None when nothing says so.

    ``recognised`` is the generator the corpus loader recognised, if any. Raises nothing."""
    if recognised:
        return f"its {recognised} site config"
    config = _config_near(root)
    if config is not None:
        return f"the site generator file {config}"
    page = next((p for suffix in _GENERATOR_PAGES for p in sorted(root.rglob(f"*{suffix}"))), None)
    if page is not None:
        return f"a page only a site generator reads ({page.relative_to(root).as_posix()})"
    for outline in outlines:
        if outline.generator_syntax:
            return f"generator syntax in {outline.path} ({outline.generator_syntax})"
    return None


def _config_near(root: Path) -> str | None:
    """The first generator config in ``root`` or up to ``ANCESTORS`` folders above it (stopping at a
    repository's root), as a path relative to ``root``."""
    folder = root.absolute()
    for up in range(ANCESTORS + 1):
        for name in CONFIG_NAMES:
            if (folder / name).exists():
                return "/".join([".."] * up + [name])
        if (folder / _REPOSITORY_ROOT).exists() or folder.parent == folder:
            return None
        folder = folder.parent
    return None
