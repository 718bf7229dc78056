"""Chunking on real documentation: the labelled claude-docs set and the dub + mistral SDK corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chunk_ownership import assert_ownership
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.chunk.chunking import ChunkedFile, chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.parse.markdown import normalise
from docs_mcp.parse.strategy import Strategy


def chunk_tree(root: Path, settings: FileSettings) -> list[tuple[str, str, ChunkedFile]]:
    results = []
    for file in sorted(root.rglob("*.md")):
        path = file.relative_to(root).as_posix()
        source = file.read_text(encoding="utf-8")
        results.append((path, source, chunk_file(source, path, settings)))
    return results


def front_matter_end(lines: list[str]) -> int:
    """Last line of a ``---`` front matter block (0 if none); parsing again would double the test time."""
    if lines and lines[0].rstrip() == "---":
        closing = next((n for n, line in enumerate(lines[1:], start=2) if line.rstrip() in ("---", "...")), 0)
        return closing
    return 0


def assert_no_content_lost(path: str, source: str, result: ChunkedFile) -> None:
    lines = normalise(source).split("\n")
    owned: set[int] = set()
    for chunk in result.chunks:
        span = set(range(chunk.start_line, chunk.end_line + 1))
        assert not span & owned, f"{path}: {chunk.id} overlaps another chunk"
        owned |= span
    first = front_matter_end(lines) + 1
    lost = [n for n, line in enumerate(lines, start=1) if n >= first and line.strip() and n not in owned]
    assert not lost, f"{path}: lines {lost[:5]} are in no chunk"
    ids = [chunk.id for chunk in result.chunks]
    assert len(ids) == len(set(ids)), f"{path}: duplicate chunk ids"


def test_claude_docs_gold_ids_all_exist_when_chunked_at_h2(evaldata_dir: Path) -> None:
    corpus = evaldata_dir / "claude-docs" / "corpus"
    results = chunk_tree(corpus, FileSettings(strategy=Strategy(chunk_by="h2")))
    produced = {chunk.id for _, _, result in results for chunk in result.chunks}
    queries = (evaldata_dir / "claude-docs" / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    gold = {chunk_id for line in queries for chunk_id in json.loads(line)["relevant"]}
    assert len(gold) > 100
    assert sorted(gold - produced) == []
    for path, source, result in results:
        assert_no_content_lost(path, source, result)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_every_corpora_file_chunks_with_unique_ids_and_no_lost_content(evaldata_dir: Path) -> None:
    results = chunk_tree(evaldata_dir / "corpora", FileSettings())
    assert len(results) == 3958
    for path, source, result in results:
        assert_no_content_lost(path, source, result)
        assert_ownership(source, result, where=path)
        # Real SDK docs carry no hints: the only finding is a block too big for one chunk, cut.
        assert {finding.rule for finding in result.findings} <= {"split-inside-block"}, path
    assert sum(len(result.chunks) for _, _, result in results) > 3958
    cut = {(o.block, o.how) for _, _, result in results for o in result.oversized if o.how == "inside-block"}
    assert cut == {("table", "inside-block"), ("bullet_list", "inside-block")}


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("limit", [20_000, 2_000, 300])
def test_every_real_file_splits_into_chunks_under_any_limit_owning_every_byte_once(
    evaldata_dir: Path, limit: int
) -> None:
    settings = FileSettings(strategy=Strategy(max_chunk_size=limit))
    for folder in ("corpora/mistral/python", "claude-docs/corpus"):
        for path, source, result in chunk_tree(evaldata_dir / folder, settings):
            assert_ownership(source, result, where=path)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_real_files_under_random_limits_keep_every_byte_once(evaldata_dir: Path) -> None:
    files = sorted((evaldata_dir / "claude-docs" / "corpus").rglob("*.md"))
    files += sorted((evaldata_dir / "corpora").rglob("*.md"))[::20]
    sources = {f.relative_to(evaldata_dir).as_posix(): f.read_text(encoding="utf-8") for f in files}

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.sampled_from(sorted(sources)), st.integers(40, 30_000), st.sampled_from(["h1", "h2", "h3", "file"])
    )
    def check(path: str, limit: int, chunk_by: str) -> None:
        strategy = Strategy(chunk_by=chunk_by, max_chunk_size=limit)  # type: ignore[arg-type]
        assert_ownership(sources[path], chunk_file(sources[path], path, FileSettings(strategy=strategy)))

    check()
