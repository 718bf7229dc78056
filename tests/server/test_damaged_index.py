"""Issue 19: a damaged LanceDB data file (truncated, deleted) made ``search`` and ``serve`` print a
traceback, or "damaged, rebuild it" with a 600-character Rust dump. Now each is one line, exit 1."""

from __future__ import annotations

import functools
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docs_mcp.store.columns import LANCEDB_DIR

pytestmark = pytest.mark.timeout(120)


def _data_file(index: Path) -> Path:
    return sorted((index / LANCEDB_DIR).rglob("data/*.lance"))[0]


def _index_file(index: Path) -> Path:
    return sorted((index / LANCEDB_DIR).rglob("_indices/*/metadata.lance"))[0]  # a full-text index


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated-data-file": lambda index: _data_file(index).write_bytes(_data_file(index).read_bytes()[:200]),
    "deleted-data-file": lambda index: _data_file(index).unlink(),
    "deleted-index-file": lambda index: _index_file(index).unlink(),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
@pytest.mark.parametrize("command", ["search", "serve"])
def test_a_damaged_data_file_is_one_line_and_exit_1(
    example_index: Path, tmp_path: Path, damage: str, command: str
) -> None:
    index = shutil.copytree(example_index, tmp_path / "index")
    DAMAGE[damage](index)
    args = (
        ["search", "--index", str(index), "refund a payment"]
        if command == "search"
        else ["serve", "--index", str(index)]
    )
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args], capture_output=True, text=True, timeout=60, input=""
    )
    ours = [line for line in done.stderr.splitlines() if line.startswith("docs-mcp")]
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and len(ours) == 1, done.stderr
    assert "is damaged" in ours[0] and "rebuild it" in ours[0] and ".cargo" not in ours[0], ours[0]
    assert len(ours[0]) < 500, ours[0]


EDITS: dict[str, Callable[[dict[str, Any]], object]] = {
    "nested-100-deep": lambda data: data.update(x=functools.reduce(lambda inner, _: [inner], range(100), [])),
    "chunk-count-text": lambda data: data.update(chunk_count="abc"),
    "facet-values-text": lambda data: data.update(facets={"language": "go"}),
    "instructions-object": lambda data: data.update(instructions={"a": 1}),
    "description-list": lambda data: data.update(description=[1, 2]),
}


@pytest.mark.parametrize("edit", [*EDITS, "nested-5000-deep"])
def test_an_edited_index_manifest_is_one_line_and_exit_1(
    example_index: Path, tmp_path: Path, edit: str
) -> None:
    """Issue 19: a deeply nested or hand-edited index manifest was a traceback in search and serve."""
    index = shutil.copytree(example_index, tmp_path / "index")
    manifest = index / "docs-mcp-index.json"
    if edit == "nested-5000-deep":
        manifest.write_text(
            manifest.read_text().rstrip().removesuffix("}") + ', "x": ' + "[" * 5000 + "]" * 5000 + "}"
        )
    else:
        data = json.loads(manifest.read_text())
        EDITS[edit](data)
        manifest.write_text(json.dumps(data))
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", "search", "--index", str(index), "refund"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1 and "is corrupt" in done.stderr, done.stderr
