"""Fixtures for the container tests: a Docker engine (or a skip, or a failure under CI), the images
built from this checkout, and examples/docs built into an index by the build image."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Before testcontainers reads its configuration: the Ryuk reaper image cannot be pulled on these
# machines (every test removes its own containers), and they have a /.dockerenv that would make
# testcontainers look for containers at a gateway address instead of the engine's host.
os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
os.environ.setdefault("TESTCONTAINERS_CONNECTION_MODE", "docker_host")

from image_support import (
    BUILD_IMAGE,
    REQUIRE_ENV,
    SERVE_IMAGE,
    SERVE_LOCAL_IMAGE,
    build_images,
    engine_problem,
    host_user,
    run_to_exit,
)


@pytest.fixture(scope="session")
def docker_engine() -> None:
    """A Docker engine at DOCKER_HOST; without one, skip (fail when $DOCS_MCP_REQUIRE_DOCKER is set)."""
    problem = engine_problem()
    if problem is None:
        return
    if os.environ.get(REQUIRE_ENV):
        pytest.fail(f"{problem} ({REQUIRE_ENV} is set: the container tests must run here)")
    pytest.skip(f"{problem}; the container tests need one (./dev images explains)")


@pytest.fixture(autouse=True)
def _needs_docker(docker_engine: None) -> None:
    """Every test in this folder runs against the engine, or is skipped (failed in CI) with the reason."""


@pytest.fixture(scope="session")
def images(docker_engine: None) -> tuple[str, str]:
    """docs-mcp-build and docs-mcp-serve built from this checkout by scripts/images (cached layers
    make a rebuild of an unchanged tree take seconds)."""
    built = build_images("all")
    assert built == [BUILD_IMAGE, SERVE_IMAGE], built
    return BUILD_IMAGE, SERVE_IMAGE


@pytest.fixture(scope="session")
def serve_local_image(docker_engine: None) -> str:
    """docs-mcp-serve with the offline query embedder (build argument EMBEDDER=local)."""
    assert build_images("serve-local") == [SERVE_LOCAL_IMAGE]
    return SERVE_LOCAL_IMAGE


@pytest.fixture(scope="session")
def build_image(images: tuple[str, str]) -> str:
    return images[0]


@pytest.fixture(scope="session")
def serve_image(images: tuple[str, str]) -> str:
    return images[1]


@pytest.fixture(scope="session")
def container_index(build_image: str, examples_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/docs built full text by the build image into a mounted folder."""
    out = tmp_path_factory.mktemp("container-index")
    ran = run_to_exit(
        build_image,
        ["build", "--docs-dir", "/docs", "--out", "/out/index", "--quiet"],
        volumes=[(examples_docs, "/docs", "ro"), (out, "/out", "rw")],
        user=host_user(),
    )
    assert ran.exit_code == 0, ran.output
    return out / "index"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
