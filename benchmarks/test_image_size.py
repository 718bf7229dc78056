"""Image size (issue 23): ``docs-mcp-serve`` and its local-embedder variant as ``./dev images`` built
them (tag ``$DOCS_MCP_IMAGE_TAG``, default dev), in MB as ``./dev images sizes`` reports (the engine's
uncompressed size). Skipped without a Docker engine or without the images; build them first
(``./dev images`` and ``./dev images serve-local``). Run:
``.venv/bin/python -m pytest benchmarks/test_image_size.py --benchmark-only -s``.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

TAG = os.environ.get("DOCS_MCP_IMAGE_TAG", "dev")


@pytest.mark.parametrize("variant", ["serve", "serve-local"])
def test_serve_image_size(benchmark: BenchmarkFixture, variant: str) -> None:
    image = f"docs-mcp-serve:{TAG}" + ("-local" if variant == "serve-local" else "")
    docker = shutil.which("docker")
    if docker is None:
        pytest.skip("no docker CLI")

    def inspect() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [docker, "image", "inspect", "-f", "{{.Size}}", image],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    done = benchmark.pedantic(inspect, rounds=1, iterations=1)
    if done.returncode != 0:
        pytest.skip(f"{image} not built here ({done.stderr.strip()[:200]}): run ./dev images first")
    size_mb = round(int(done.stdout.strip()) / 1e6)
    benchmark.extra_info.update(image=image, size_mb=size_mb)
    print(f"\n{image}: {size_mb} MB")
