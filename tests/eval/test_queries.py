"""Query files load once, at the edge: every problem names its line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from eval_support import DATA

from docs_mcp.errors import ConfigError
from docs_mcp.eval.queries import load_queries
from testkit.evaldata_sets import claude_docs_queries

pytestmark = pytest.mark.timeout(30)

BAD = json.loads((DATA / "bad-queries.json").read_text(encoding="utf-8"))
GOOD_LINE = '{"id": "ok", "query": "fine", "relevant": ["a.md#b"]}'


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_line_is_refused_naming_the_file_line_and_field(case: str, tmp_path: Path) -> None:
    path = tmp_path / "queries.jsonl"
    path.write_text(f"{GOOD_LINE}\n\n{BAD[case]['line']}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"queries\.jsonl:3: .*") as raised:
        load_queries(path)
    assert BAD[case]["error"] in str(raised.value)


def test_an_id_used_twice_names_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(f"{GOOD_LINE}\n{GOOD_LINE}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"q\.jsonl:2: id 'ok' is already used on line 1"):
        load_queries(path)


def test_an_empty_or_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(ConfigError, match="holds no query"):
        load_queries(tmp_path / "empty.jsonl")
    with pytest.raises(ConfigError, match="cannot read the query file"):
        load_queries(tmp_path / "missing.jsonl")


def test_optional_fields_load_and_unknown_keys_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    line = {
        "id": 7,
        "query": "q",
        "relevant": ["a.md", "b.md"],
        "grades": {"b.md": 3},
        "filters": {"language": "go"},
        "category": "pages",
        "answer": "ignored",
    }
    path.write_text(json.dumps(line) + "\n")
    (query,) = load_queries(path)
    assert (query.id, query.unit, query.category) == ("7", "page", "pages")
    assert (query.grade("a.md"), query.grade("b.md")) == (1.0, 3.0)
    assert dict(query.filters) == {"language": "go"}


def test_the_claude_docs_queries_load_as_they_are(evaldata_dir: Path) -> None:
    queries = load_queries(claude_docs_queries(evaldata_dir))
    assert len(queries) == 100
    assert {query.unit for query in queries} == {"section"}
    assert all(1 <= len(query.relevant) <= 4 for query in queries)
