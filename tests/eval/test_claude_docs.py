from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.corpus.loader import load_corpus
from docs_mcp.eval import EvalOptions, evaluate
from docs_mcp.eval.queries import load_queries
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from testkit.evaldata_sets import claude_docs_queries, stage_claude_docs

pytestmark = pytest.mark.timeout(300)


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


@pytest.fixture(scope="module")
def claude_index(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("claude")
    build(BuildOptions(docs_dir=stage_claude_docs(evaldata_dir, root / "docs"), out=root / "out"))
    return root / "out"


@pytest.mark.slow
def test_the_harness_scores_what_the_index_ranks(claude_index: Path, evaldata_dir: Path) -> None:
    """Through the MCP server, the harness sees DocsIndex's own ranking, and with exact matching its
    recall@3 and MRR@3 are the plain set arithmetic over chunk ids (an independent oracle)."""
    queries_file = claude_docs_queries(evaldata_dir)
    report = evaluate(EvalOptions(queries=queries_file, index=claude_index, ks=(3,), match="exact"))
    index = DocsIndex.open(claude_index)
    recall = reciprocal = 0.0
    for result in report.primary.queries:
        ranked = [hit.chunk_id for hit in index.search(SearchRequest(result.query.query, limit=3)).hits]
        assert list(result.units) == ranked, result.query.id
        wanted = set(result.query.relevant)
        recall += len(wanted.intersection(ranked)) / len(wanted)
        first = next((rank for rank, cid in enumerate(ranked, start=1) if cid in wanted), None)
        reciprocal += 1 / first if first else 0.0
    assert report.metrics["recall@3"] == pytest.approx(recall / 100)
    assert report.metrics["mrr@3"] == pytest.approx(reciprocal / 100)
