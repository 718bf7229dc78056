"""``docs-mcp search``, ``get`` and ``eval`` through main() against a real index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docs_mcp.cli.main import main
from docs_mcp.indexing.pipeline import BuildOptions, build
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)
SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=root / "out"))
    return root / "out"


def test_search_prints_ranked_hits_with_snippets(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--index", str(out), "exponential backoff", "--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1. guides/retries.md#retries/backoff-strategy")
    assert "exponential backoff" in lines[2]


def test_search_json_applies_language_and_auto_include(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--index", str(out), "retries", "--language", "python", "--json"]) == 0
    page = json.loads(capsys.readouterr().out)
    assert page["mode"] == "fulltext"
    assert {hit["facets"].get("language", "-") for hit in page["hits"]} <= {"python", "-"}
    assert any(hit["facets"]["scope"] == "global-guide" for hit in page["hits"])


def test_search_with_an_unknown_language_exits_1(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--index", str(out), "retries", "--language", "cobol"]) == 1
    assert "language is one of" in capsys.readouterr().err


def test_get_prints_the_chunk_and_its_neighbours(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "--index", str(out), "guides/retries.md#retries/timeouts", "--context", "1"]) == 0
    text = capsys.readouterr().out
    assert "* guides/retries.md#retries/timeouts (3/3)" in text
    assert "  guides/retries.md#retries/backoff-strategy (2/3)" in text


def test_get_of_a_missing_chunk_exits_1_with_suggestions(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["get", "--index", str(out), "guides/retries.md#retries/timeout"]) == 1
    assert "did you mean: guides/retries.md#retries/timeouts" in capsys.readouterr().err


def test_search_on_a_missing_index_exits_1_saying_to_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "--index", str(tmp_path), "x"]) == 1
    assert "docs-mcp build" in capsys.readouterr().err


def test_a_filter_without_an_equals_sign_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "--index", str(tmp_path), "retries", "--filter", "language"]) == 1
    assert "--filter takes FACET=VALUE, got 'language'" in capsys.readouterr().err


def test_a_query_of_30000_characters_is_refused_at_once(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "--index", str(out), "createLink " * 2727]) == 1
    err = capsys.readouterr().err
    assert err.startswith("docs-mcp: error: query has 29997 characters; at most 1000")


def test_search_piped_into_head_stops_quietly_when_the_reader_goes_away(out: Path) -> None:
    command = [sys.executable, "-m", "docs_mcp", "search", "--index", str(out), "retries", "--json"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [SRC, os.environ.get("PYTHONPATH")]))}
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # `| head -0`: the reader is gone before the first line
        error = process.stderr.read().decode()
        assert process.wait(60) == 1
    assert error == ""
