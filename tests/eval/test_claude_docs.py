from __future__ import annotations

import json
from pathlib import Path

import pytest
from evaldata_sets import claude_docs_queries, stage_claude_docs

from docs_mcp.authoring.corpus import load_corpus
from docs_mcp.eval.retrieval import load_queries

pytestmark = pytest.mark.timeout(120)


def test_staging_a_missing_corpus_says_where_it_looked(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="claude-docs"):
        stage_claude_docs(tmp_path, tmp_path / "dest")


@pytest.mark.slow
def test_the_staged_corpus_validates_and_holds_every_gold_section_whole(
    evaldata_dir: Path, tmp_path: Path
) -> None:
    docs = stage_claude_docs(evaldata_dir, tmp_path / "docs")
    manifest = json.loads((docs / ".docs-mcp.json").read_text())
    assert manifest["strategy"]["chunk_by"] == "h2"
    corpus = load_corpus(docs)
    assert corpus.errors == []
    ids = {chunk.id for chunk in corpus.chunks}
    # 232 ## sections, none split (a split section would get -2 style ids and lose its gold id).
    assert len([cid for cid in ids if "#" in cid]) >= 232
    gold = {cid for query in load_queries(claude_docs_queries(evaldata_dir)) for cid in query.relevant}
    assert gold <= ids
