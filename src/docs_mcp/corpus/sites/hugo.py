"""Hugo (Docsy and other themes): ``hugo.{toml,yaml,yml,json}`` (or ``config.*``, or
``config/_default/hugo.*``) in the site folder, the docs folder being its ``content/`` (or
``content/<language>/``).

The config (TOML, YAML or JSON, read as data) gives ``title``, ``baseURL`` and ``params.description``
(``config/_default/params.*`` too). Routes: the lower-cased path, ending in ``/`` (``_index.md`` and
``index.md`` name their folder), or the front matter's ``slug``/``url``; anchors are GitHub's slugs.
Headless bundles (an ``index.md`` with ``headless: true``) and ``_common/`` folders are partials.
Syntax: shortcodes ``{{< name >}}`` / ``{{% name %}}`` and their closing tags go (a ``title`` or
``header`` becomes a label line, a ``{{< tab lang="x" >}}`` a code fence), the escaped
``{{</* name */>}}`` shows as code, ``{{< readfile >}}`` pulls the file in.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from docs_mcp.corpus.sites.base import (
    Site,
    SiteGenerator,
    broken,
    directory_route,
    front_matter,
    github_slug,
    http_url,
)
from docs_mcp.corpus.sites.mkdocs import load_yaml
from docs_mcp.parse.site_dialect import Dialect
from docs_mcp.parse.site_include import Include

__all__ = ["Hugo"]

_NAMES = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml", "config.yml")
_ESCAPED = re.compile(r"\{\{([<%])/\*\s*(.*?)\s*\*/([>%])\}\}")
_SHORTCODE = re.compile(r"\{\{([<%])-?\s*(/?)\s*(\w[\w/.-]*)((?:(?![>%]\}\}).)*?)\s*(/?)\s*-?([>%])\}\}")
_ATTRIBUTE = re.compile(r"""\b(title|header|lang|code|text)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
_READFILE = re.compile(r"""^(\s*)\{\{[<%]\s*readfile\s+(?:file\s*=\s*)?["']([^"']+)["']([^}]*)[>%]\}\}\s*$""")
_MULTILINE = re.compile(r"\{\{[<%](?:(?![>%]\}\}).){0,2000}?\n(?:(?![>%]\}\}).){0,2000}?[>%]\}\}", re.DOTALL)
_ATTRIBUTES_LINE = re.compile(r"^[\s>]*\{\s*[#.][^{}]*\}\s*$")  # goldmark's ``{.class}`` under a block
_FENCE = re.compile(r"^\s*(?:>\s*)*(`{3,}|~{3,})")


class _Shortcodes:
    """One page's shortcodes rewritten (Hugo renders them everywhere, code blocks included):
    ``{{< tab lang="yaml" >}}`` of a code tab pane (and a ``code=true`` card) opens a code fence its
    closing tag closes; a ``title``/``header`` becomes a label line; the rest goes; an escaped
    ``{{</* x */>}}`` shows as ``{{< x >}}`` (in a code span outside code)."""

    def __init__(self) -> None:
        self.open: list[tuple[str, bool]] = []  # (name, whether its content is markdown / code)
        self.in_code = False

    def page(self, text: str) -> str:
        if "{{" not in text:
            return text
        text = _MULTILINE.sub(_joined, text)
        return "\n".join(self.line(line) for line in text.split("\n"))

    def line(self, line: str) -> str:
        if not self.in_code and _ATTRIBUTES_LINE.match(line):
            return ""
        if "{{" in line:
            line = _SHORTCODE.sub(self.shortcode, line)  # first: the escaped form is no shortcode
            line = _ESCAPED.sub(self.escaped, line)
        if _FENCE.match(line) is not None:  # a fence, written or made of a code tab
            self.in_code = not self.in_code
        return line

    def escaped(self, match: re.Match[str]) -> str:
        literal = f"{{{{{match.group(1)} {match.group(2)} {match.group(3)}}}}}"
        before = match.string[: match.start()]
        return literal if self.in_code or before.count("`") % 2 else f"`{literal}`"

    def shortcode(self, match: re.Match[str]) -> str:
        closing, name, raw, self_closing = match.group(2), match.group(3), match.group(4), match.group(5)
        attributes = {
            m.group(1): m.group(2) or m.group(3) or m.group(4) or "" for m in _ATTRIBUTE.finditer(raw)
        }
        if closing:
            while self.open:
                opened, code = self.open.pop()
                if opened == name:
                    return "```" if code and name != "tabpane" else ""
            return ""
        if name == "readfile":
            return match.group(0)  # an include: the include rule reads the file
        if self_closing or "disabled" in raw:
            return ""
        pane_is_code = bool(self.open) and self.open[-1][0] == "tabpane" and self.open[-1][1]
        code = (name == "tab" and pane_is_code) or attributes.get("code") == "true"
        if name == "tabpane":
            self.open.append((name, attributes.get("text") != "true"))
            return ""
        if name in (
            "tab",
            "card",
            "alert",
            "blocks/section",
            "blocks/feature",
            "blocks/cover",
            "blocks/lead",
        ):
            self.open.append((name, code))
        label = attributes.get("title") or attributes.get("header")
        if code:
            return f"```{attributes.get('lang', '')}"
        return f"{label.strip('*').strip()}:" if label else ""


def _joined(match: re.Match[str]) -> str:
    """A shortcode written over several lines, on its first line; the lines it took after it blank."""
    text = match.group(0)
    return text.replace("\n", " ") + "\n" * text.count("\n")


def _shortcodes(page: str) -> str:
    return _Shortcodes().page(page)


def _readfile(content: str, in_code: bool) -> Include | None:
    match = _READFILE.match(content) if not in_code else None
    if match is None:
        return None
    code = bool(re.search(r"\bcode\s*=\s*[\"']?true", match.group(3)))
    language = re.search(r"\blang\s*=\s*[\"']([\w-]+)", match.group(3))
    return Include(match.group(2).lstrip("/"), match.group(1), code=code,
                   language=language.group(1) if language else None)  # fmt: skip


class Hugo(SiteGenerator):
    name = "hugo"
    config_names = _NAMES
    config_folders = ("..", "../..", "../config/_default", "../../config/_default")

    def owns(self, config: Path, docs_dir: Path) -> bool:
        if config.name.startswith("config.") and config.parent.name != "_default":
            text = config.read_text(encoding="utf-8", errors="replace")[:1_000_000]
            return bool(re.search(r"(?im)^\s*['\"]?(baseurl|contentdir|theme)\b", text))
        return True

    def read(self, path: Path, text: str) -> Site:
        site_root = path.parent.parent.parent if path.parent.name == "_default" else path.parent
        try:
            data = _load(path.suffix, text)
        except (ValueError, yaml.YAMLError, RecursionError, MemoryError) as error:
            detail = str(error).splitlines()[0] if str(error) else type(error).__name__
            return broken(path, site_root, f"site config {path} cannot be read ({detail})")
        found = data.get("params")
        params: dict[str, Any] = found if isinstance(found, dict) else _params(path)
        title, description = data.get("title"), params.get("description")
        return Site(
            generator=self.name,
            config=path,
            repo_root=site_root,
            name=title if isinstance(title, str) and title else None,
            url=http_url(data.get("baseURL") or data.get("baseurl")),
            description=description if isinstance(description, str) else None,
        )

    def dialect(self, site: Site) -> Dialect:
        return Dialect(
            self.name,
            families=frozenset(["plain"]),
            include_rules=(_readfile,),
            prepare=_shortcodes,
        )

    def is_partial(self, path: str, text: str, site: Site) -> bool:
        return "_common" in path.split("/")[:-1] or front_matter(text).get("headless") is True

    def route(self, page: PurePosixPath, front: Mapping[str, str], site: Site) -> str:
        if front.get("url"):
            return front["url"].strip("/") + "/"
        route = directory_route(PurePosixPath(page.as_posix().lower()), directory=True)
        if front.get("slug") and page.stem not in ("index", "_index"):
            return route.rstrip("/").rpartition("/")[0].lstrip("/") + "/" + front["slug"].strip("/") + "/"
        return route.lstrip("/")

    def anchor(self, heading: str) -> str:
        return github_slug(heading)


def _load(suffix: str, text: str) -> dict[str, Any]:
    data: Any = (
        tomllib.loads(text)
        if suffix == ".toml"
        else json.loads(text)
        if suffix == ".json"
        else load_yaml(text)
    )
    if not isinstance(data, dict):
        raise ValueError("not a mapping")
    return data


def _params(config: Path) -> dict[str, Any]:
    for name in ("params.yaml", "params.yml", "params.toml", "params.json"):
        candidate = config.parent / name
        if candidate.is_file():
            try:
                return _load(candidate.suffix, candidate.read_text(encoding="utf-8")[:1_000_000])
            except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError, RecursionError):
                return {}  # params are optional: a bad file gives none
    return {}
