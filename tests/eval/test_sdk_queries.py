"""The labelled SDK question set (tests/data/sdk_queries.jsonl) stays true to the corpora it labels."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from docs_mcp.corpus.loader import load_corpus
from docs_mcp.eval.queries import load_queries
from testkit.evaldata_sets import SDK_QUERIES, materialize_sdk_corpora

pytestmark = pytest.mark.timeout(300)

CATEGORIES = {"language-in-query", "filter", "any-language", "type-fields"}
# How the questions name a language (the aliases a developer types).
NAMED = {
    "python": r"\bpython\b",
    "typescript": r"\btypescript\b|\bnode\.js\b",
    "go": r"\bgo\b|\bgolang\b",
}


def rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in SDK_QUERIES.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_set_loads_in_the_eval_harness_with_unique_ids_and_enough_questions() -> None:
    loaded = load_queries(SDK_QUERIES)

    assert len(loaded) >= 40
    assert len({q.id for q in loaded}) == len(loaded)
    assert all(q.relevant for q in loaded)


def test_every_question_has_a_known_category_and_grades_only_its_relevant_entries() -> None:
    for row in rows():
        assert row["category"] in CATEGORIES, row["id"]
        grades = row.get("grades", {})
        assert isinstance(grades, dict) and set(grades) <= set(row["relevant"]), row["id"]  # type: ignore[arg-type]
        assert set(grades.values()) <= {1, 2}, row["id"]


def test_categories_agree_with_the_text_and_the_filters() -> None:
    for row in rows():
        text = str(row["query"]).lower()
        named = {language for language, pattern in NAMED.items() if re.search(pattern, text)}
        filters = row.get("filters", {})
        if row["category"] == "language-in-query":
            assert len(named) == 1 and "language" not in filters, row["id"]  # type: ignore[operator]
            folder = f"/{next(iter(named))}/"
            assert all(folder in entry for entry in row["relevant"]), row["id"]  # type: ignore[attr-defined]
        elif row["category"] == "filter":
            assert not named and "language" in filters, row["id"]  # type: ignore[operator]
        else:
            assert not named and "language" not in filters, row["id"]  # type: ignore[operator]


@pytest.mark.slow
def test_every_gold_chunk_and_file_exists_in_the_staged_corpora(evaldata_dir: Path, tmp_path: Path) -> None:
    docs = materialize_sdk_corpora(evaldata_dir / "corpora", tmp_path / "docs")
    corpus = load_corpus(docs)
    ids = {chunk.id for chunk in corpus.chunks}
    files = {file.path for file in corpus.files}
    values: dict[str, set[str]] = {}
    for chunk in corpus.chunks:
        for key, value in chunk.metadata.items():
            values.setdefault(key, set()).add(value)

    missing = [
        entry
        for row in rows()
        for entry in row["relevant"]  # type: ignore[attr-defined]
        if entry not in (ids if "#" in entry else files)
    ]
    unknown = [
        (row["id"], key, value)
        for row in rows()
        for key, value in row.get("filters", {}).items()  # type: ignore[attr-defined]
        if value not in values.get(key, set())
    ]

    assert missing == []
    assert unknown == []
