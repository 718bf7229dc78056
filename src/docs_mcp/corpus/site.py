"""The site generator a docs folder is written for, recognised from its config, read as data only.

A folder of markdown is often the source of a documentation site: MkDocs, Docusaurus, VitePress,
Starlight, Nextra, Mintlify, Hugo, mdBook, GitBook or Sphinx, each one module of
``docs_mcp.corpus.sites`` saying how its config is found and read, which files are pages, its
routes, anchors and syntax. What the config does not say can come from the docs manifest's ``site``
key (``generator``, ``name``, ``url``, ``url_template``, ``config``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from docs_mcp.corpus.sites import GENERATORS, find_generator, generator_for_config
from docs_mcp.corpus.sites.base import SITE_CONFIG_RULE, Site, broken, http_url, read_config_text
from docs_mcp.errors import Finding

__all__ = ["GENERATORS", "SITE_CONFIG_RULE", "Site", "detect_site"]


def detect_site(
    docs_dir: Path, site_config: Path | None = None, declared: Mapping[str, Any] | None = None
) -> Site:
    """The site ``docs_dir`` is the source of: ``site_config`` when given, else the docs manifest's
    ``site.config`` (``declared``, relative to ``docs_dir``), else the first config a generator finds
    for ``docs_dir``; ``declared`` values (``generator``, ``name``, ``url``, ``url_template``) then
    fill in or override. Never raises for a bad config: it becomes a finding."""
    declared = declared or {}
    config = site_config
    if config is None and isinstance(declared.get("config"), str):
        config = docs_dir / str(declared["config"])
    site = _read(config, docs_dir)
    generator = declared.get("generator")
    if generator in GENERATORS and generator != site.generator:
        site = replace(site, generator=generator)
    elif isinstance(generator, str) and generator not in GENERATORS:
        message = (
            f"site.generator {generator!r} is no generator docs-mcp reads (one of {', '.join(GENERATORS)})"
        )
        finding = Finding(".docs-mcp.json", 0, "warning", message, SITE_CONFIG_RULE)
        site = replace(site, findings=(*site.findings, finding))
    if isinstance(declared.get("name"), str):
        site = replace(site, name=declared["name"])
    if isinstance(declared.get("url"), str):
        site = replace(site, url=http_url(declared["url"]))
    if isinstance(declared.get("url_template"), str):
        site = replace(site, url_template=declared["url_template"])
    return site


def _read(config: Path | None, docs_dir: Path) -> Site:
    if config is None:
        found = find_generator(docs_dir)
        if found is None:
            return Site(repo_root=docs_dir)
        generator, config = found
    else:
        generator = generator_for_config(config)
    text, problem = read_config_text(config)
    if text is None:
        return broken(config, docs_dir, problem or f"cannot read site config {config}")
    return generator.read(config, text)
