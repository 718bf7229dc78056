"""The CLI, run as a user runs it (a subprocess), over generated hostile folders and indexes: wrong
shapes where scalars belong, huge counts, files cut at any byte. Every run ends with an exit code and
lines naming the file, never a traceback; a damaged index is one line naming its manifest.
Bounded for CI (``hostile_strategies.examples``): each example starts a Python process."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hostile_strategies import (
    MANIFEST_BYTES,
    PAGE_BYTES,
    WRONG_SCALAR,
    examples,
    fuzz_timeout,
    json_text,
    torn,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(fuzz_timeout(300))
CLI = settings(max_examples=examples(6), suppress_health_check=[HealthCheck.too_slow], deadline=None)
MAX_LINE = 1_000


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert "Traceback" not in said, said[-2000:]
    assert all(len(line) < MAX_LINE for line in said.splitlines()), max(said.splitlines(), key=len)[:300]
    return done


@CLI
@given(
    pages=st.dictionaries(st.sampled_from(["a.md", "sub/c.md"]), PAGE_BYTES, min_size=1, max_size=2),
    manifest=st.one_of(st.none(), MANIFEST_BYTES),
)
def test_validate_and_build_of_wrong_shaped_torn_and_huge_files_exit_with_findings(
    pages: dict[str, bytes], manifest: bytes | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        docs = Path(folder) / "docs"
        files = {**pages, **({".docs-mcp.json": manifest} if manifest is not None else {})}
        for name, data in files.items():
            (docs / name).parent.mkdir(parents=True, exist_ok=True)
            (docs / name).write_bytes(data)
        validated = _run("validate", "--docs-dir", str(docs))
        assert validated.returncode in (0, 1)
        built = _run("build", "--docs-dir", str(docs), "--out", str(Path(folder) / "out"), "--quiet")
        assert built.returncode in (0, 1)
        assert (built.returncode == 0) == (Path(folder) / "out" / MANIFEST_FILE).is_file()


@pytest.fixture(scope="module")
def good_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("good") / "out"
    build(BuildOptions(docs_dir=write_docs(tmp_path_factory.mktemp("docs")), out=out))
    return out


def _field_replaced(good: bytes, field: str, value: object) -> bytes:
    data = json.loads(good)
    data[field] = value
    return json_text(data).encode()


@CLI
@given(data=st.data())
def test_search_on_a_torn_or_wrong_shaped_index_manifest_is_one_line_naming_it(
    good_index: Path, data: st.DataObject
) -> None:
    good = (good_index / MANIFEST_FILE).read_bytes()
    damaged = data.draw(
        st.one_of(
            torn(st.just(good)).filter(lambda cut: cut.rstrip() != good.rstrip()),
            st.builds(
                lambda field, value: _field_replaced(good, field, value),
                st.sampled_from(["format_version", "chunk_count", "file_count", "facets", "embedding",
                                 "content_hash", "docs_mcp_version", "taxonomy", "prompts"]),
                WRONG_SCALAR,
            ),
        )
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        index = Path(folder) / "index"
        shutil.copytree(good_index, index)
        (index / MANIFEST_FILE).write_bytes(damaged)
        done = _run("search", "--index", str(index), "refund")
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("docs-mcp: error: "), lines
        assert MANIFEST_FILE in lines[0] or "manifest says" in lines[0], lines
