"""An index folder someone edited or cannot read is one clear error at open, never served as written
and never a Rust debug dump: a manifest's numbers are checked for type and range, its chunk count
against the table, and a permission problem is named as one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from docs_mcp.errors import IndexUnavailable
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import write_docs


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damaged")
    files = {"a.md": "# A\n\n## One\n\nRetry with backoff.\n\n## Two\n\nPaginate.\n"}
    build(BuildOptions(docs_dir=write_docs(root / "docs", files), out=root / "out"))
    return root / "out"


def _edited(built: Path, tmp_path: Path, **fields: object) -> Path:
    copy = tmp_path / "index"
    shutil.copytree(built, copy)
    manifest = json.loads((copy / MANIFEST_FILE).read_text())
    manifest.update(fields)
    (copy / MANIFEST_FILE).write_text(json.dumps(manifest))
    return copy


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"format_version": "3"}, "format_version is '3', not a whole number"),
        ({"format_version": 3.0}, "format_version is 3.0, not a whole number"),
        ({"chunk_count": -1}, "chunk_count is -1, not a whole number of at least 0"),
        ({"chunk_count": "2"}, "chunk_count is '2'"),
        ({"chunk_count": True}, "chunk_count is True"),
        ({"file_count": [1]}, "file_count is [1]"),
    ],
)
def test_a_manifest_number_of_the_wrong_type_or_range_is_refused_naming_it(
    built: Path, tmp_path: Path, fields: dict[str, object], message: str
) -> None:
    with pytest.raises(IndexUnavailable, match="corrupt") as raised:
        DocsIndex.open(_edited(built, tmp_path, **fields))
    assert message in str(raised.value)


@pytest.mark.parametrize("count", [999_999, 0, 1])
def test_a_chunk_count_the_table_does_not_hold_is_damage(built: Path, tmp_path: Path, count: int) -> None:
    with pytest.raises(IndexUnavailable, match=f"manifest says {count} chunks and its table holds 2"):
        DocsIndex.open(_edited(built, tmp_path, chunk_count=count))


_AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _nobody_can_run_python() -> bool:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    probe = subprocess.run(
        [*_AS_NOBODY, sys.executable, "-c", "import docs_mcp"], capture_output=True, check=False
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _nobody_can_run_python(), reason="needs root, setpriv and a checkout others may read")
def test_an_index_this_user_cannot_read_says_so_not_a_rust_dump(built: Path) -> None:
    shared = Path(tempfile.mkdtemp(prefix="docs-mcp-unreadable-"))  # pytest's tmp_path is root's alone
    try:
        copy = shared / "index"
        shutil.copytree(built, copy)
        for path in [shared, copy, *copy.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (copy / ".lancedb").chmod(0o700)  # root's alone; the search runs as nobody
        done = subprocess.run(
            [*_AS_NOBODY, sys.executable, "-m", "docs_mcp", "search", "--index", str(copy), "retry"],
            capture_output=True, text=True, timeout=60, check=False, env={**os.environ, "HOME": str(shared)},
        )  # fmt: skip
    finally:
        shutil.rmtree(shared)
    assert done.returncode == 1
    assert "cannot be read by this user" in done.stderr and "permission denied" in done.stderr
    assert "LocalFileSystem" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
