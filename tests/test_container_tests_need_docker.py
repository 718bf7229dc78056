"""Without a Docker engine the container tests are skipped saying why, except where
DOCS_MCP_REQUIRE_DOCKER is set (CI), where they fail: a CI run never passes by skipping them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

REPO_ROOT = Path(__file__).resolve().parents[1]
# Needs no image: it fails or skips on the engine check alone.
CONTAINER_TEST = "tests/images/test_serve_image.py::test_no_build_dependency_is_importable_in_the_serve_image"


def _run_without_engine(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "DOCS_MCP_REQUIRE_DOCKER"}
    env.update(DOCKER_HOST=f"unix://{tmp_path}/no-engine.sock", **extra)
    return subprocess.run(
        [sys.executable, "-m", "pytest", CONTAINER_TEST, "-p", "no:cacheprovider", "-rs", "-q"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
        check=False,
    )


def test_without_an_engine_the_container_tests_skip_with_the_reason(tmp_path: Path) -> None:
    ran = _run_without_engine(tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 skipped" in ran.stdout
    assert "no Docker engine at unix://" in ran.stdout


def test_without_an_engine_the_container_tests_fail_where_docker_is_required(tmp_path: Path) -> None:
    ran = _run_without_engine(tmp_path, DOCS_MCP_REQUIRE_DOCKER="1")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "DOCS_MCP_REQUIRE_DOCKER is set" in ran.stdout
