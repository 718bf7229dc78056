"""GitBook: ``.gitbook.yaml`` in the docs folder or the folder above it (``root:`` naming the docs
folder), with the table of contents in ``SUMMARY.md``.

The config (YAML, read as data) gives the folder and the README/SUMMARY names; GitBook configs carry
no site name or URL, so the name is the README's first heading. ``SUMMARY.md`` is the nav (titles),
not a page. Syntax: ``{% hint style="info" %}`` ... ``{% endhint %}`` become an ``Info:`` line,
``{% tab title="X" %}`` an ``X:`` line, ``{% embed %}``, ``{% code %}``, ``{% tabs %}``,
``{% content-ref %}`` and their end tags go.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from docs_mcp.corpus.sites.base import Site, SiteGenerator, config_head, github_slug, markdown_links
from docs_mcp.parse.site_dialect import Dialect

__all__ = ["GitBook"]

_TAG = re.compile(r"\{%-?\s*([\w-]+)((?:[^%]|%(?!\}))*?)-?%\}")
_ATTRIBUTE = re.compile(r"""\b(title|caption|style)\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def _tags(text: str) -> str:
    """Each GitBook tag as the line a reader sees: a hint's kind, a tab's title, else nothing."""
    return _TAG.sub(_tag, text) if "{%" in text else text


def _tag(match: re.Match[str]) -> str:
    name = match.group(1).lower()
    attributes = {m.group(1): m.group(2) or m.group(3) or "" for m in _ATTRIBUTE.finditer(match.group(2))}
    if name == "hint":
        return f"{attributes.get('style', 'note').capitalize()}:"
    if name == "tab" and attributes.get("title"):
        return f"{attributes['title']}:"
    if name == "embed" and attributes.get("caption"):
        return attributes["caption"]
    return ""


class GitBook(SiteGenerator):
    name = "gitbook"
    config_names = (".gitbook.yaml",)

    def owns(self, config: Path, docs_dir: Path) -> bool:
        root = _settings(config).get("root", ".")
        return (config.parent / str(root)).resolve() == docs_dir.resolve()

    def read(self, path: Path, text: str) -> Site:
        docs_dir = (path.parent / str(_settings(path).get("root", "."))).resolve()
        return Site(generator=self.name, config=path, repo_root=path.parent, name=_readme_title(docs_dir))

    def dialect(self, site: Site) -> Dialect:
        return Dialect(self.name, families=frozenset(["plain"]), line_rules=(_tags,))

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return path == "SUMMARY.md"

    def anchor(self, heading: str) -> str:
        return github_slug(heading)

    def titles(self, site: Site, docs_dir: Path) -> dict[str, str]:
        text = config_head(docs_dir / "SUMMARY.md")
        if text is None:
            return {}
        return {target.split("#")[0]: title for title, target in markdown_links(text) if "://" not in target}


def _settings(config: Path) -> dict[str, object]:
    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8")[:1_000_000])
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _readme_title(docs_dir: Path) -> str | None:
    try:
        text = (docs_dir / "README.md").read_text(encoding="utf-8")[:100_000]
    except (OSError, UnicodeDecodeError):
        return None
    heading = re.search(r"^#\s+(.+?)\s*#*\s*$", text, re.MULTILINE)
    return heading.group(1) if heading else None
