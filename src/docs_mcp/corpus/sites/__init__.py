"""The site generators docs-mcp reads, one module each, in the order they are looked for.

A generator is recognised by its config (``SiteGenerator.find_config``), read as data. Adding one is
a module with a ``SiteGenerator`` subclass, listed in ``REGISTRY``, and its tests; nothing else names
a generator.
"""

from __future__ import annotations

from pathlib import Path

from docs_mcp.corpus.sites.base import Site, SiteGenerator
from docs_mcp.corpus.sites.docusaurus import Docusaurus
from docs_mcp.corpus.sites.gitbook import GitBook
from docs_mcp.corpus.sites.hugo import Hugo
from docs_mcp.corpus.sites.mdbook import MdBook
from docs_mcp.corpus.sites.mdx import Mdx
from docs_mcp.corpus.sites.mintlify import Mintlify
from docs_mcp.corpus.sites.mkdocs import MkDocs
from docs_mcp.corpus.sites.nextra import Nextra
from docs_mcp.corpus.sites.sphinx import Sphinx
from docs_mcp.corpus.sites.starlight import Starlight
from docs_mcp.corpus.sites.vitepress import VitePress

__all__ = [
    "GENERATORS",
    "MDX_GENERATOR",
    "REGISTRY",
    "Site",
    "SiteGenerator",
    "find_generator",
    "generator_named",
]

REGISTRY: tuple[SiteGenerator, ...] = (
    MkDocs(),
    Docusaurus(),
    VitePress(),
    Starlight(),
    Nextra(),
    Mintlify(),
    Hugo(),
    MdBook(),
    GitBook(),
    Sphinx(),
)
_PLAIN = SiteGenerator()
_MDX = Mdx()  # no config: picked for a folder of MDX pages
MDX_GENERATOR = _MDX.name
GENERATORS: tuple[str, ...] = (*(generator.name for generator in REGISTRY), _MDX.name, _PLAIN.name)
_BY_NAME = {generator.name: generator for generator in (*REGISTRY, _MDX, _PLAIN)}


def generator_named(name: str) -> SiteGenerator:
    """The generator called ``name``; the plain one (no generator) for any other name."""
    return _BY_NAME.get(name, _PLAIN)


def find_generator(docs_dir: Path) -> tuple[SiteGenerator, Path] | None:
    """The first generator whose config is found for ``docs_dir``, with that config."""
    for generator in REGISTRY:
        config = generator.find_config(docs_dir)
        if config is not None:
            return generator, config
    return None


def generator_for_config(config: Path) -> SiteGenerator:
    """The generator a config given by name (``--site-config``) belongs to: by its file name, a
    ``.py`` file being Sphinx's, else mkdocs' (a YAML file of any name)."""
    path = config.as_posix()
    for generator in REGISTRY:
        if any(path == name or path.endswith("/" + name) for name in generator.config_names):
            return generator
    return generator_named("sphinx") if config.suffix == ".py" else generator_named("mkdocs")
