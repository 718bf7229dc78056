"""The walk over a docs folder: which files are pages, manifests, templates, and which are left out."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.corpus.docs_manifest import MANIFEST_NAME
from docs_mcp.corpus.files import special_file_kind
from docs_mcp.corpus.prompts import is_template

__all__ = ["DocsTree", "is_markdown", "is_mdx", "is_rst", "walk_docs"]


@dataclass
class DocsTree:
    """What a docs folder holds, by kind."""

    markdown: list[str]  # posix paths relative to the root, sorted
    manifests: list[str]
    outside: list[str]  # symlinks leading out of the root: reported, never read
    special: list[tuple[str, str]]  # (path, kind) of FIFOs, devices, sockets: reported, never opened
    mdx: list[str] = field(default_factory=list)  # ``*.mdx`` pages: read when the site generator uses them
    templates: list[str] = field(default_factory=list)  # ``*.template.md`` prompt templates (prompts.py)
    rst: list[str] = field(default_factory=list)  # ``*.rst`` pages: read when the site is Sphinx's

    def add(self, path: str) -> None:
        """Count ``path`` (a file not on disk yet: an overlay's) under its kind, kept sorted."""
        name = path.rpartition("/")[2]
        if name == MANIFEST_NAME:
            kind = self.manifests
        elif is_markdown(name):
            kind = self.markdown
        elif is_mdx(name):
            kind = self.mdx
        elif is_rst(name):
            kind = self.rst
        elif is_template(name):
            kind = self.templates
        else:
            return
        if path not in kind:
            kind.append(path)
            kind.sort()


def walk_docs(root: Path) -> DocsTree:
    """Collect markdown files and manifests; skip hidden folders, templates and outside links."""
    tree = DocsTree([], [], [], [], [])
    real_root = root.resolve()
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        # Hidden folders (.git, .venv, .github) are tooling, never documentation.
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        relative_folder = Path(folder).relative_to(root).as_posix()
        prefix = "" if relative_folder == "." else relative_folder + "/"
        for name in filenames:
            is_manifest = name == MANIFEST_NAME
            mdx = is_mdx(name)
            rst = is_rst(name)
            template = is_template(name)
            if not is_manifest and not mdx and not rst and not template and not is_markdown(name):
                continue
            full = Path(folder, name)
            kind = special_file_kind(full)  # None also when it cannot be stat'ed: reading reports it
            if kind is not None:
                tree.special.append((prefix + name, kind))
            elif full.is_symlink() and not _resolves_inside(full, real_root):
                tree.outside.append(prefix + name)
            else:
                kept = (
                    tree.manifests if is_manifest else tree.mdx if mdx else tree.rst if rst else tree.markdown
                )
                (tree.templates if template else kept).append(prefix + name)
    tree.markdown.sort()
    tree.rst.sort()
    tree.manifests.sort()
    tree.outside.sort()
    tree.special.sort()
    return tree


def _resolves_inside(link: Path, real_root: Path) -> bool:
    try:
        return link.resolve().is_relative_to(real_root)
    except (OSError, RuntimeError):  # a loop (RuntimeError before Python 3.13): reading reports it
        return True


def is_markdown(name: str) -> bool:
    """An indexed markdown file name: ``*.md``, not hidden, not a prompt template."""
    return not name.startswith(".") and name.endswith(".md") and not is_template(name)


def is_mdx(name: str) -> bool:
    """An MDX page name: ``*.mdx``, not hidden."""
    return not name.startswith(".") and name.endswith(".mdx")


def is_rst(name: str) -> bool:
    """A reStructuredText page name: ``*.rst``, not hidden."""
    return not name.startswith(".") and name.endswith(".rst")
