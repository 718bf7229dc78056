"""Autouse fixtures that keep every build's cache out of the user's home: the session's own cache home
(for session-scoped indexes), and a fresh one per test, so a test's first build makes everything (as a
build into a fresh OUT did when the cache lived inside OUT). Import both into a conftest."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docs_mcp.store.cache_home import CACHE_ENV


@pytest.fixture(scope="session", autouse=True)
def session_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``$DOCS_MCP_CACHE_DIR`` for the session's fixtures."""
    patch = pytest.MonkeyPatch()
    path = tmp_path_factory.mktemp("cache-home")
    patch.setenv(CACHE_ENV, str(path))
    yield path
    patch.undo()


@pytest.fixture(autouse=True)
def test_cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$DOCS_MCP_CACHE_DIR`` for one test: its builds share nothing with other tests'."""
    path = tmp_path_factory.mktemp("cache-home")
    monkeypatch.setenv(CACHE_ENV, str(path))
    return path
