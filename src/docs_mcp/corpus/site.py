"""The site generator a docs folder is written for, recognised from its config, read as data only.

A folder of markdown is often the source of a documentation site: ``mkdocs.yml`` (MkDocs, Material
for MkDocs) or ``docusaurus.config.js|ts`` beside ``docs/``, or a Sphinx ``conf.py`` (MyST markdown)
inside it. What the generator is decides which syntax the pages use (``docs_mcp.parse.site_syntax``
turns it into plain markdown), whether ``.mdx`` pages are read, and the page URLs hits carry.

Configs are never executed: ``mkdocs.yml`` is loaded with the YAML safe loader (its ``!!python/...``
and ``!ENV`` tags read as nothing), ``docusaurus.config.js`` is scanned for the literal strings of
its top-level ``title``, ``url`` and ``baseUrl``, ``conf.py`` parsed (``ast``) for literal
assignments. What the config does not say can come from the docs manifest's ``site`` key.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from docs_mcp.errors import Finding

__all__ = ["GENERATORS", "Generator", "Site", "detect_site"]

Generator = Literal["mkdocs", "docusaurus", "sphinx", "none"]
GENERATORS: tuple[str, ...] = ("mkdocs", "docusaurus", "sphinx", "none")

_MKDOCS_NAMES = ("mkdocs.yml", "mkdocs.yaml")
_DOCUSAURUS_NAMES = tuple(f"docusaurus.config.{ext}" for ext in ("js", "ts", "mjs", "cjs", "mts"))
_SPHINX_NAMES = ("conf.py",)
_MAX_CONFIG_BYTES = 1_000_000
_INHERIT_DEPTH = 5
SITE_CONFIG_RULE = "site-config"


@dataclass(frozen=True)
class Site:
    """What a docs folder's site generator says about it.

    ``repo_root`` is the folder includes may read from (the config's folder; the docs folder when
    there is no config): nothing outside it is ever read. ``url`` is the site's base URL ending in
    ``/`` (mkdocs ``site_url``; Docusaurus ``url`` + ``baseUrl`` + the docs route), None when unknown.
    """

    generator: Generator = "none"
    config: Path | None = None
    repo_root: Path | None = None
    name: str | None = None
    url: str | None = None
    url_template: str | None = None  # the docs manifest's, for a site whose routes are not known
    use_directory_urls: bool = True  # mkdocs: ``page/`` rather than ``page.html``
    variables: Mapping[str, Any] = field(default_factory=dict)  # mkdocs ``extra:`` (macros)
    macros: bool = False  # a macros plugin or extension renders ``{{ ... }}``
    myst: bool = False  # Sphinx with MyST markdown (``myst_parser`` / ``myst_nb``)
    findings: tuple[Finding, ...] = ()  # problems reading the config

    @property
    def recognised(self) -> bool:
        return self.generator != "none"

    @property
    def reads_mdx(self) -> bool:
        return self.generator == "docusaurus"

    def to_dict(self, docs_dir: Path | None = None) -> dict[str, Any]:
        """What was found, JSON-ready (the index manifest's ``site`` key and validate's summary)."""
        config: str | None = None
        if self.config is not None:
            config = self.config.name
            if docs_dir is not None:
                try:
                    config = self.config.resolve().relative_to(docs_dir.resolve().parent).as_posix()
                except ValueError:
                    config = self.config.name
        return {
            "generator": self.generator,
            "config": config,
            "name": self.name,
            "url": self.url,
            "url_template": self.url_template,
        }


def detect_site(
    docs_dir: Path, site_config: Path | None = None, declared: Mapping[str, Any] | None = None
) -> Site:
    """The site ``docs_dir`` is the source of: ``site_config`` when given, else the docs manifest's
    ``site.config`` (``declared``, relative to ``docs_dir``), else a config found in ``docs_dir`` or
    the folder above it; ``declared`` values (``generator``, ``name``, ``url``, ``url_template``)
    then fill in or override. Never raises for a bad config: it becomes a finding."""
    declared = declared or {}
    config = site_config
    if config is None and isinstance(declared.get("config"), str):
        config = docs_dir / str(declared["config"])
    if config is None:
        config = _find_config(docs_dir)
    site = _read_config(config, docs_dir) if config is not None else Site(repo_root=docs_dir)
    generator = declared.get("generator")
    if generator in GENERATORS and generator != site.generator:
        site = replace(site, generator=generator)
    if isinstance(declared.get("name"), str):
        site = replace(site, name=declared["name"])
    if isinstance(declared.get("url"), str):
        site = replace(site, url=_with_slash(declared["url"]))
    if isinstance(declared.get("url_template"), str):
        site = replace(site, url_template=declared["url_template"])
    return site


def _find_config(docs_dir: Path) -> Path | None:
    """A config in ``docs_dir``, or in the folder above when its docs folder is ``docs_dir``."""
    for folder in (docs_dir, docs_dir.parent):
        for name in (*_MKDOCS_NAMES, *_DOCUSAURUS_NAMES):
            config = folder / name
            if config.is_file() and (folder == docs_dir or _docs_folder_of(config) == docs_dir.name):
                return config
    for folder in (docs_dir, docs_dir / "source"):
        if (folder / "conf.py").is_file():
            return folder / "conf.py"
    return None


_DOCS_DIR_KEY = re.compile(r"^docs_dir\s*:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)
_DOCS_PATH_KEY = re.compile(r"\bpath\s*:\s*['\"]([^'\"]+)['\"]")


def _docs_folder_of(config: Path) -> str:
    """The name of the docs folder a config beside it publishes (mkdocs ``docs_dir``, a Docusaurus
    docs plugin's ``path``; both ``docs`` by default), from its text; "" when unreadable."""
    try:
        text = config.read_text(encoding="utf-8")[:_MAX_CONFIG_BYTES]
    except (OSError, UnicodeDecodeError):
        return ""
    pattern = _DOCS_DIR_KEY if config.name in _MKDOCS_NAMES else _DOCS_PATH_KEY
    found = pattern.search(text)
    return Path(found.group(1)).name if found else "docs"


def _read_config(path: Path, docs_dir: Path) -> Site:
    where = str(path)
    try:
        if path.stat().st_size > _MAX_CONFIG_BYTES:
            return _broken(path, docs_dir, f"{where} is over {_MAX_CONFIG_BYTES:,} bytes; not read")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return _broken(path, docs_dir, f"cannot read site config {where}: {error}")
    name = path.name
    if name in _SPHINX_NAMES or name.endswith(".py"):
        return _sphinx(path, text)
    if name.startswith("docusaurus.config."):
        return _docusaurus(path, text)
    return _mkdocs(path, text)


def _broken(path: Path, docs_dir: Path, message: str) -> Site:
    finding = Finding("", 0, "warning", message + "; pass --site-config FILE or fix it", SITE_CONFIG_RULE)
    return Site(config=path, repo_root=docs_dir, findings=(finding,))


class _ConfigLoader(yaml.SafeLoader):
    """The safe loader, reading mkdocs' tags (``!!python/name:...``, ``!ENV``, ``!relative``) as None:
    they name code or the environment, which a config read as data cannot have."""


def _tag_as_none(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> None:
    return None


_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", _tag_as_none)
_ConfigLoader.add_multi_constructor("!", _tag_as_none)


def _load_mkdocs(path: Path, depth: int = 0) -> dict[str, Any]:
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_ConfigLoader)
    if not isinstance(data, dict):
        raise ValueError("not a mapping")
    parent = data.pop("INHERIT", None)
    if isinstance(parent, str) and depth < _INHERIT_DEPTH:
        base_file = (path.parent / parent).resolve()
        if base_file.is_relative_to(path.parent.resolve()) and base_file.is_file():
            return _merged(_load_mkdocs(base_file, depth + 1), data)
    return data


def _merged(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in child.items():
        out[key] = (
            _merged(out[key], value) if isinstance(out.get(key), dict) and isinstance(value, dict) else value
        )
    return out


def _mkdocs(path: Path, text: str) -> Site:
    try:
        data = _load_mkdocs(path)
    except (yaml.YAMLError, ValueError, OSError, RecursionError) as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        return _broken(path, path.parent, f"site config {path} is not valid YAML ({detail})")
    extensions = data.get("markdown_extensions") or []
    plugins = data.get("plugins") or []
    names = [*_names(extensions), *_names(plugins)]
    url = data.get("site_url")
    extra = data.get("extra")
    return Site(
        generator="mkdocs",
        config=path,
        repo_root=path.parent,
        name=str(data["site_name"]) if data.get("site_name") else None,
        url=_with_slash(url) if isinstance(url, str) and url else None,
        use_directory_urls=data.get("use_directory_urls", True) is not False,
        variables=extra if isinstance(extra, dict) else {},
        macros=any("macros" in name for name in names),
    )


def _names(entries: object) -> list[str]:
    """The names of mkdocs extensions or plugins: a list (of names or one-key mappings) or a mapping."""
    if isinstance(entries, dict):
        return [str(key) for key in entries]
    if isinstance(entries, list):
        return [str(next(iter(e))) if isinstance(e, dict) and e else str(e) for e in entries]
    return []


_JS_KEY = re.compile(r"\b(title|url|baseUrl|routeBasePath)\s*:\s*(['\"`])((?:(?!\2)[^\\\n$]|\\.)*)\2")


def _docusaurus(path: Path, text: str) -> Site:
    """Literal values of the outermost object's keys (``title``, ``url``, ``baseUrl``): the key
    nearest the top wins, so a navbar's ``title`` never names the site."""
    depths = _brace_depths(text)
    found: dict[str, tuple[int, str]] = {}
    for match in _JS_KEY.finditer(text):
        key, value, depth = match.group(1), match.group(3), depths[match.start()]
        if key == "routeBasePath":
            depth = 1  # the docs plugin's, wherever it is nested: the first one
        if depth >= 1 and (key not in found or depth < found[key][0]):
            found[key] = (depth, value)
    values = {key: value for key, (_, value) in found.items()}
    url: str | None = None
    if values.get("url"):
        base = values.get("baseUrl", "/").strip("/")
        route = values.get("routeBasePath", "docs").strip("/")
        url = "/".join(part for part in (values["url"].rstrip("/"), base, route) if part) + "/"
    return Site(
        generator="docusaurus", config=path, repo_root=path.parent, name=values.get("title") or None, url=url
    )


def _brace_depths(text: str) -> list[int]:
    """The ``{``/``[`` nesting depth at every character of JavaScript ``text``, strings and comments
    skipped (a rough lexer: good for configs, which are object literals)."""
    depths = [0] * (len(text) + 1)
    depth = 0
    index = 0
    quote = ""
    while index < len(text):
        char = text[index]
        depths[index] = depth
        if quote:
            if char == "\\":
                depths[index + 1 : index + 2] = [depth]
                index += 1
            elif char == quote:
                quote = ""
        elif text.startswith("//", index):
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
            depths[index:end] = [depth] * (end - index)
            index = end
            continue
        elif text.startswith("/*", index):
            end = text.find("*/", index + 2)
            end = len(text) if end < 0 else end + 2
            depths[index:end] = [depth] * (end - index)
            index = end
            continue
        elif char in "'\"`":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth = max(0, depth - 1)
        index += 1
    return depths


def _sphinx(path: Path, text: str) -> Site:
    values: dict[str, Any] = {}
    try:
        tree = ast.parse(text, filename=str(path))
    except (SyntaxError, ValueError) as error:
        return _broken(path, path.parent, f"site config {path} is not valid Python ({error})")
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                values[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                continue
    found = values.get("extensions")
    extensions: list[Any] = list(found) if isinstance(found, list | tuple) else []
    myst = any(isinstance(e, str) and e.startswith(("myst_parser", "myst_nb")) for e in extensions)
    url = values.get("html_baseurl")
    project = values.get("project")
    # conf.py sits in the docs folder (or its source/): includes may read the repository above it.
    return Site(
        generator="sphinx",
        config=path,
        repo_root=path.parent.parent.parent if path.parent.name == "source" else path.parent.parent,
        name=project if isinstance(project, str) and project else None,
        url=_with_slash(url) if isinstance(url, str) and url else None,
        use_directory_urls=False,
        myst=myst,
    )


def _with_slash(url: str) -> str:
    return url if url.endswith("/") else url + "/"
