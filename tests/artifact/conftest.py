"""Fixtures for artifact tests: real registries (anonymous and htpasswd) and small real indexes."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from registry_support import Registry, start_registry, stop_registry

from docs_mcp.build.pipeline import BuildOptions, build

USER, PASSWORD = "ci-bot", "s3cret-registry-pass"
EXTRA_PAGE = """# Zebra crossings

The quokka endpoint reports zebra crossings for a city. Call it with a city code.
"""


@pytest.fixture(scope="session")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    started = start_registry(tmp_path_factory.mktemp("registry"))
    try:
        yield started
    finally:
        stop_registry(started)


@pytest.fixture(scope="session")
def auth_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    started = start_registry(tmp_path_factory.mktemp("auth-registry"), username=USER, password=PASSWORD)
    try:
        yield started
    finally:
        stop_registry(started)


@pytest.fixture(scope="session")
def index_a(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    """examples/docs built full text."""
    out = tmp_path_factory.mktemp("index-a") / "index"
    build(BuildOptions(docs_dir=examples_docs, out=out))
    return out


@pytest.fixture(scope="session")
def docs_b(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    """examples/docs plus one page with words no other page has (``quokka``)."""
    docs = tmp_path_factory.mktemp("docs-b") / "docs"
    shutil.copytree(examples_docs, docs)
    (docs / "guides" / "zebra.md").write_text(EXTRA_PAGE)
    return docs


@pytest.fixture(scope="session")
def index_b(tmp_path_factory: pytest.TempPathFactory, docs_b: Path) -> Path:
    """A different index: examples/docs plus the quokka page."""
    out = tmp_path_factory.mktemp("index-b") / "index"
    build(BuildOptions(docs_dir=docs_b, out=out))
    return out
