"""``build --calibrate QUERIES``: the hybrid fusion picked from labelled questions, recorded, applied."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.cli.main import main
from docs_mcp.eval.calibrate import TEXT_WEIGHTS
from docs_mcp.search.config import SearchConfig, with_index_fusion
from docs_mcp.search.fusion import FusionConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.store.index_manifest import read_manifest
from testkit.index_fixtures import SDK_FILES, write_docs

pytestmark = pytest.mark.timeout(300)

QUESTIONS = [
    {
        "id": "q1",
        "query": "retry configuration backoff",
        "relevant": ["python/README.md#retry-configuration"],
    },
    {"id": "q2", "query": "Foo widget model fields", "relevant": ["python/docs/models/foo.md"]},
]


def test_build_calibrate_records_the_fusion_and_the_index_uses_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs", SDK_FILES)
    queries = tmp_path / "queries.jsonl"
    queries.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    out = tmp_path / "out"
    command = ["build", "--docs-dir", str(docs), "--out", str(out), "--embedding-provider", "hash"]

    assert main([*command, "--calibrate", str(queries), "--quiet"]) == 0

    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("calibrated hybrid fusion on 2 questions: text weight ")
    fusion = read_manifest(out).fusion
    assert fusion is not None and fusion["text_weight"] in TEXT_WEIGHTS
    index = DocsIndex.open(out)
    assert index.config.fusion.text_weight == fusion["text_weight"]
    assert index.vector_floor == fusion["vector_floor"]


def test_calibrating_an_index_without_vectors_says_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs", SDK_FILES)
    queries = tmp_path / "queries.jsonl"
    queries.write_text(json.dumps(QUESTIONS[0]) + "\n")
    command = ["build", "--docs-dir", str(docs), "--out", str(tmp_path / "out"), "--calibrate", str(queries)]
    assert main([*command, "--quiet"]) == 1
    assert "no vectors: --calibrate tunes hybrid fusion" in capsys.readouterr().err


def test_a_recorded_fusion_replaces_only_the_defaults() -> None:
    recorded = {"text_weight": 2.0, "vector_floor": 0.3}
    tuned = with_index_fusion(SearchConfig(), recorded)
    assert tuned.fusion.text_weight == 2.0 and tuned.vector_floor("any-model") == 0.3
    own = SearchConfig(fusion=FusionConfig(text_weight=1.0), vector_floors={"m": 0.5})
    assert with_index_fusion(own, recorded) == own
    assert with_index_fusion(SearchConfig(), None) == SearchConfig()
