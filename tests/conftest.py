"""Fixtures shared by every test layer."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from registry_support import REGISTRY_PASSWORD, REGISTRY_USER, Registry, start_registry, stop_registry

from docs_mcp.server.hub.union import UNION_ENV
from testkit.cache_home import session_cache_home, test_cache_home  # noqa: F401 (autouse)

# No wall-clock deadlines (CI machines are shared and noisy); CI runs derandomised so a failure
# reproduces from the same examples.
settings.register_profile("default", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session", autouse=True)
def union_off_unless_set() -> Iterator[None]:
    """Merged searches ask each library's own index (exact) unless ``DOCS_MCP_UNION`` is set: a union
    made in the background mid-test would change the answers the tests of the exact path compare
    (tests/server/test_library_union.py turns it on)."""
    patch = pytest.MonkeyPatch()
    if UNION_ENV not in os.environ:
        patch.setenv(UNION_ENV, "off")
    yield
    patch.undo()


EXAMPLES_DOCS = REPO_ROOT / "examples" / "docs"


def _evaldata_dir() -> Path:
    configured = os.environ.get("DOCS_MCP_EVALDATA")
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "evaldata"


@pytest.fixture(scope="session")
def evaldata_dir() -> Path:
    """``../shared/evaldata`` (or ``$DOCS_MCP_EVALDATA``): real corpora and the labelled query set."""
    path = _evaldata_dir()
    if not (path / "README.md").is_file():
        pytest.fail(f"evaldata not found at {path}; set DOCS_MCP_EVALDATA to the shared/evaldata folder")
    return path


@pytest.fixture(scope="session")
def examples_docs() -> Path:
    """The bundled example documentation set."""
    return EXAMPLES_DOCS


@pytest.fixture(scope="session")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    started = start_registry(tmp_path_factory.mktemp("registry"))
    try:
        yield started
    finally:
        stop_registry(started)


@pytest.fixture(scope="session")
def auth_registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Registry]:
    started = start_registry(
        tmp_path_factory.mktemp("auth-registry"), username=REGISTRY_USER, password=REGISTRY_PASSWORD
    )
    try:
        yield started
    finally:
        stop_registry(started)
