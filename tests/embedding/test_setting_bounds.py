"""Embedding settings are bounded above as well as below, once, where flags and the root manifest
meet (``create_provider``) and in the manifest's schema: ``--embedding-dimensions 1000000000000``
asked the hash provider for terabytes and ended in a MemoryError traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp.embedding.provider import EmbeddingSettings, create_provider
from docs_mcp.errors import ConfigError
from docs_mcp.limits import MAX_EMBEDDING_BATCH_SIZE, MAX_EMBEDDING_CONCURRENCY, MAX_EMBEDDING_DIMENSIONS
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)

BOUNDS = {
    "dimensions": MAX_EMBEDDING_DIMENSIONS,
    "batch_size": MAX_EMBEDDING_BATCH_SIZE,
    "concurrency": MAX_EMBEDDING_CONCURRENCY,
}


@pytest.mark.parametrize("setting", list(BOUNDS))
def test_each_setting_up_to_its_bound_is_taken(setting: str) -> None:
    provider = create_provider("hash", EmbeddingSettings(**{setting: BOUNDS[setting]}))
    assert provider is not None


@pytest.mark.parametrize("setting", list(BOUNDS))
@pytest.mark.parametrize("excess", [1, 10**12, 10**300])
def test_each_setting_past_its_bound_is_a_config_error_naming_the_flag(setting: str, excess: int) -> None:
    with pytest.raises(ConfigError) as refused:
        create_provider("hash", EmbeddingSettings(**{setting: BOUNDS[setting] + excess}))
    message = str(refused.value)
    assert message.startswith("--embedding-" + setting.replace("_", "-")) and len(message) < 200


def test_build_with_huge_dimensions_is_a_usage_error_not_a_memory_error(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "build", "--docs-dir", str(docs), "--out", str(tmp_path / "out"),
         "--embedding-provider", "hash", "--embedding-dimensions", "1000000000000", "--quiet"],
        capture_output=True, text=True, timeout=100, check=False,
    )  # fmt: skip
    assert done.returncode != 0 and "Traceback" not in done.stderr
    expected = f"--embedding-dimensions must be a whole number from 1 to {MAX_EMBEDDING_DIMENSIONS:,}"
    assert done.stderr.strip().splitlines()[-1].endswith(f"{expected} (got 1000000000000)")
    assert not (tmp_path / "out").exists()


def test_a_manifest_asking_for_huge_dimensions_is_an_invalid_manifest_finding(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    (docs / ".docs-mcp.json").write_text(
        json.dumps({"version": "1", "embedding": {"provider": "hash", "dimensions": 10**9}})
    )
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "validate", "--docs-dir", str(docs)],
        capture_output=True, text=True, timeout=100, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert ".docs-mcp.json: error: embedding.dimensions: 1000000000 is greater than the maximum of 16000" in (
        done.stdout + done.stderr
    )
