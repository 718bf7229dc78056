"""The ``impacts`` table a build writes: per token, the highest score LanceDB gives it in one chunk."""

from __future__ import annotations

from pathlib import Path

import lancedb
import pytest
from lancedb.query import MatchQuery

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.bounds import ScoreBounds
from docs_mcp.search.query import Clause
from docs_mcp.store.columns import FTS_COLUMNS, LANCEDB_DIR, TABLE_NAME
from docs_mcp.store.impact_table import HASH_COLUMN, IMPACTS_TABLE, token_hash


@pytest.fixture(scope="module")
def built(examples_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("impacts") / "out"
    build(BuildOptions(docs_dir=examples_docs, out=out))
    return out


def test_each_token_impact_is_lancedbs_best_score_for_it(built: Path) -> None:
    db = lancedb.connect(str(built / LANCEDB_DIR))
    chunks, impacts = db.open_table(TABLE_NAME), db.open_table(IMPACTS_TABLE).to_arrow()
    by_hash = {key: row for row, key in enumerate(impacts.column(HASH_COLUMN).to_pylist())}
    assert impacts.column(HASH_COLUMN).to_pylist() == sorted(by_hash)
    checked = 0
    for column in FTS_COLUMNS:
        texts = chunks.to_arrow().column(column).to_pylist()
        tokens = sorted({token.text for text in texts[:40] for token in lancedb.tokenize(text)})
        for token in tokens[::7]:  # a spread of the vocabulary, rare and common
            best = chunks.search(MatchQuery(token, column), query_type="fts").limit(1).to_arrow()
            impact = impacts.column(column)[by_hash[token_hash(token)]].as_py()
            assert best["_score"][0].as_py() == pytest.approx(impact, rel=1e-5), (column, token)
            checked += 1
    assert checked > 20


def test_a_bound_sums_boosted_impacts_and_a_word_the_index_lacks_adds_nothing(built: Path) -> None:
    bounds = ScoreBounds(built)
    db = lancedb.connect(str(built / LANCEDB_DIR))
    chunks = db.open_table(TABLE_NAME)
    one = bounds.bound([Clause("payment", "body", 1.0, False)])
    assert one is not None and one > 0
    best = chunks.search(MatchQuery("payments", "body"), query_type="fts").limit(1).to_arrow()
    assert best["_score"][0].as_py() == pytest.approx(one, rel=1e-5)  # the same token: "payment"
    assert bounds.bound([Clause("payment", "body", 2.5, False)]) == pytest.approx(2.5 * one)
    assert bounds.bound([Clause("payment zzqqxxvv", "body", 1.0, False)]) == pytest.approx(one)
    assert bounds.bound([Clause("zzqqxxvv", "body", 1.0, False)]) == 0.0
    assert bounds.bound([Clause("payment", "body", 1.0, False)], factor=2.0) == pytest.approx(2 * one)


def test_an_index_without_the_table_has_no_bound(built: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(built, copy)
    lancedb.connect(str(copy / LANCEDB_DIR)).drop_table(IMPACTS_TABLE)
    assert ScoreBounds(copy).bound([Clause("payment", "body", 1.0, False)]) is None


def test_impacts_held_in_memory_stay_within_the_budget_and_are_read_again(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docs_mcp.search import bounds as module

    first, second = ScoreBounds(built), ScoreBounds(built)
    clause = [Clause("payment", "body", 1.0, False)]
    expected = first.bound(clause)
    assert first.nbytes > 0
    monkeypatch.setattr(module, "BYTES_HELD_MAX", first.nbytes)  # room for one index's
    assert second.bound(clause) == expected
    assert first.nbytes == 0 and second.nbytes > 0  # the least recently used one was dropped
    assert module.held_bytes() <= module.BYTES_HELD_MAX
    assert first.bound(clause) == expected  # read again on demand
    assert second.nbytes == 0
