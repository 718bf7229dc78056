"""Bytes and estimated tokens per answer, as a real MCP client receives them (in process).

For the 100 claude-docs questions and the 51 SDK questions (both full text): ``search_docs`` with the
default limit and budget, then ``get_doc`` of its first hit at context 0, 1 and 5. Each answer is
measured as its whole ``CallToolResult`` serialized (text and structured content), and the two parts
apart; tokens are estimated as the server counts them (one per 3 bytes of UTF-8). ``extra_info`` holds
the median and p95 of each; the gates in thresholds.toml keep every p95 within the default budget.
Run: ``.venv/bin/python -m pytest benchmarks/test_answer_size.py -p no:cacheprovider -s``.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from pytest_benchmark.fixture import BenchmarkFixture

from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import create_server
from docs_mcp.server.tools.budget import estimate_tokens
from testkit.evaldata_sets import SDK_QUERIES, claude_docs_queries, question_texts

pytestmark = pytest.mark.timeout(600)

CONTEXTS = (0, 1, 5)


def _sizes(result: Any) -> dict[str, int]:
    text = "".join(getattr(block, "text", "") for block in result.content)
    structured = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return {
        "whole": len(result.model_dump_json(by_alias=True, exclude_none=True).encode()),
        "text": len(text.encode()),
        "structured": len(structured.encode()),
    }


async def _measure(index: Path, queries: list[str]) -> dict[str, list[dict[str, int]]]:
    answers: dict[str, list[dict[str, int]]] = {"search": [], **{f"get_c{c}": [] for c in CONTEXTS}}
    async with Client(create_server(DocsIndex.open(index), key=b"answer-size")) as client:
        for query in queries:
            searched = await client.call_tool("search_docs", {"query": query})
            assert not searched.is_error, searched.content
            answers["search"].append(_sizes(searched))
            hits = (searched.structured_content or {}).get("hits", [])
            for context in CONTEXTS if hits else ():
                got = await client.call_tool("get_doc", {"chunk_id": hits[0]["chunk_id"], "context": context})
                assert not got.is_error, got.content
                answers[f"get_c{context}"].append(_sizes(got))
    return answers


def _p95(values: list[int]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def _record(benchmark: BenchmarkFixture, measure: Callable[[], dict[str, list[dict[str, int]]]]) -> None:
    found: list[dict[str, list[dict[str, int]]]] = []
    benchmark.pedantic(lambda: found.append(measure()), rounds=1, iterations=1)
    for answer, sizes in found[-1].items():
        for part in ("whole", "text", "structured"):
            values = [size[part] for size in sizes]
            benchmark.extra_info[f"{answer}_{part}_bytes_median"] = statistics.median(values)
            benchmark.extra_info[f"{answer}_{part}_bytes_p95"] = round(_p95(values))
        whole = [estimate_tokens(size["whole"]) for size in sizes]
        benchmark.extra_info[f"{answer}_tokens_median"] = statistics.median(whole)
        benchmark.extra_info[f"{answer}_tokens_p95"] = round(_p95(whole))
        benchmark.extra_info[f"{answer}_tokens_max"] = max(whole)
        print(
            f"\n {answer}: bytes median {statistics.median([s['whole'] for s in sizes]):.0f} "
            f"(text {benchmark.extra_info[f'{answer}_text_bytes_median']:.0f}, structured "
            f"{benchmark.extra_info[f'{answer}_structured_bytes_median']:.0f}), tokens median "
            f"{statistics.median(whole):.0f} p95 {_p95(whole):.0f} max {max(whole)}",
            end="",
        )


def test_answer_size_claude_docs(
    benchmark: BenchmarkFixture, claude_fulltext_index: Path, evaldata_dir: Path
) -> None:
    queries = question_texts(claude_docs_queries(evaldata_dir))
    _record(benchmark, lambda: anyio.run(_measure, claude_fulltext_index, queries))


def test_answer_size_sdk(benchmark: BenchmarkFixture, corpora_index: Path) -> None:
    _record(benchmark, lambda: anyio.run(_measure, corpora_index, question_texts(SDK_QUERIES)))
