"""Real docs folders build out of the box: no manifest, no staging, every chunk under the limit."""

from __future__ import annotations

from pathlib import Path

import lancedb
import pytest

from docs_mcp.cli.main import main
from docs_mcp.parse.strategy import DEFAULT_MAX_CHUNK_SIZE
from docs_mcp.store.columns import LANCEDB_DIR, TABLE_NAME

pytestmark = pytest.mark.timeout(600)


def stored_markdown_sizes(out: Path) -> list[int]:
    table = lancedb.connect(str(out / LANCEDB_DIR)).open_table(TABLE_NAME)
    return [len(markdown) for markdown in table.to_arrow().column("markdown").to_pylist()]


def test_the_raw_claude_docs_corpus_builds_with_every_chunk_under_the_limit(
    evaldata_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    corpus = evaldata_dir / "claude-docs" / "corpus"
    assert main(["build", "--docs-dir", str(corpus), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith(f"built {out}: 45 files, ")
    sizes = stored_markdown_sizes(out)
    assert len(sizes) > 232 and max(sizes) <= DEFAULT_MAX_CHUNK_SIZE


@pytest.mark.slow
def test_the_raw_sdk_corpora_build_with_every_chunk_under_the_limit(
    evaldata_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["build", "--docs-dir", str(evaldata_dir / "corpora"), "--out", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith(f"built {out}: 3958 files, ")
    sizes = stored_markdown_sizes(out)
    assert max(sizes) <= DEFAULT_MAX_CHUNK_SIZE
    assert max(sizes) > DEFAULT_MAX_CHUNK_SIZE * 0.9  # the 95 KB tables are cut to fill the limit
