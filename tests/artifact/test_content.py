"""The content digest: what an index serves, read in batches (issue 34), independent of the layout."""

from __future__ import annotations

import shutil
from pathlib import Path

import lancedb
import pytest

from docs_mcp.artifact import content
from docs_mcp.artifact.content import content_digest
from docs_mcp.errors import IndexUnavailable
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.store.index_manifest import MANIFEST_FILE


def _digest(index: Path) -> str:
    return content_digest(index, (index / MANIFEST_FILE).read_bytes())


def test_two_builds_of_the_same_docs_have_one_digest_and_an_edit_changes_it(
    tmp_path: Path, examples_docs: Path, index_a: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    again = build(BuildOptions(docs_dir=examples_docs, out=tmp_path / "again")).out
    whole = _digest(index_a)
    assert _digest(again) == whole
    monkeypatch.setattr(content, "DIGEST_BATCH_ROWS", 3)  # many batches: still one digest per content
    assert _digest(again) == _digest(index_a) != whole  # the batch size is part of the definition
    monkeypatch.undo()
    table = lancedb.connect(str(again / ".lancedb")).open_table("chunks")
    first = table.search().select(["id"]).limit(1).to_arrow()["id"][0].as_py()
    table.update(where=f"id = '{first}'", values={"text": "edited"})
    assert _digest(again) != _digest(index_a)


def test_a_damaged_table_is_index_unavailable(tmp_path: Path, index_a: Path) -> None:
    copy = shutil.copytree(index_a, tmp_path / "copy")
    for data in (copy / ".lancedb" / "chunks.lance" / "data").iterdir():
        data.write_bytes(b"\0" * 64)
    with pytest.raises(IndexUnavailable, match="cannot read the index table"):
        _digest(copy)
