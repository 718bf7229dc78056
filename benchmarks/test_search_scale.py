"""Search cost at scale (issue 23): full text on a ~34k-chunk index, short questions and long pasted code.

The index is the SDK corpora four times over (each copy under its own folder, so every chunk id is
new; 4 x 8,260 chunks), built full text as ``docs-mcp build`` builds it. Queries: the SDK question
set (short), and code blocks cut from the corpus at up to the 1,000-character query limit (long), as
agents paste code. Each query is answered once per round on the open index, p50 and p95 per kind in
``extra_info``. Run: ``.venv/bin/python -m pytest benchmarks/test_search_scale.py --benchmark-only -s``.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from benchmarks import sdk_set
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import QUERY_MAX_LENGTH, SearchRequest
from testkit.evaldata_sets import materialize_sdk_corpora

COPIES = 4
LONG_QUERIES = 40
_CODE = re.compile(r"```[a-z]*\n(.*?)```", re.DOTALL)

pytestmark = pytest.mark.timeout(1800)


@pytest.fixture(scope="module")
def scale_index(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpora = tmp_path_factory.mktemp("scale-corpora")
    for copy in range(COPIES):
        for api in sorted((evaldata_dir / "corpora").iterdir()):
            if api.is_dir():
                shutil.copytree(api, corpora / f"{api.name}{copy or ''}")
    docs = materialize_sdk_corpora(corpora, tmp_path_factory.mktemp("scale-docs") / "docs")
    out = tmp_path_factory.mktemp("scale-index") / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    return out


def _long_queries(docs: Path) -> list[str]:
    blocks: list[str] = []
    for page in sorted(docs.rglob("*.md")):
        for block in _CODE.findall(page.read_text(encoding="utf-8")):
            if len(block) >= 400:
                blocks.append(block[:QUERY_MAX_LENGTH].strip())
    step = max(1, len(blocks) // LONG_QUERIES)
    return blocks[::step][:LONG_QUERIES]


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def test_search_at_34k_chunks_short_and_long_queries(
    benchmark: BenchmarkFixture, scale_index: Path, evaldata_dir: Path
) -> None:
    index = DocsIndex.open(scale_index)
    short = [query.query for query in sdk_set.load_set()]
    long = _long_queries(evaldata_dir / "corpora")
    assert len(long) >= 10, "too few code blocks for long queries"
    for query in short[:3] + long[:3]:  # warm the caches as a serving process would be
        index.search(SearchRequest(query))
    timings: dict[str, list[float]] = {"short": [], "long": []}

    def one_round() -> None:
        for kind, queries in (("short", short), ("long", long)):
            for query in queries:
                started = time.perf_counter()
                index.search(SearchRequest(query))
                timings[kind].append((time.perf_counter() - started) * 1000)

    benchmark.pedantic(one_round, rounds=2, iterations=1)
    info: dict[str, object] = {"chunks": index.manifest.chunk_count}
    for kind, values in timings.items():
        info[f"{kind}_p50_ms"] = round(_percentile(values, 0.5), 1)
        info[f"{kind}_p95_ms"] = round(_percentile(values, 0.95), 1)
    benchmark.extra_info.update(info)
    print(f"\n{info}")
