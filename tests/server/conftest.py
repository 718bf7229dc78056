"""Fixtures for server tests: a real index built from examples/docs, and the real server running."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import HttpServer, start_http_server, stop

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def example_index(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    """examples/docs built full text (no embeddings) into a temporary folder."""
    out = tmp_path_factory.mktemp("example-index")
    build(BuildOptions(docs_dir=examples_docs, out=out))
    return out


@pytest.fixture(scope="session")
def docs_index(example_index: Path) -> DocsIndex:
    return DocsIndex.open(example_index)


@pytest.fixture(scope="module")
def http_server(example_index: Path) -> Iterator[HttpServer]:
    server = start_http_server(example_index)
    try:
        yield server
    finally:
        stop(server)
