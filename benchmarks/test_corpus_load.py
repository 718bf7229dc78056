"""``load_corpus`` speed on the materialised SDK corpora (3,958 files, 16 MiB, manifests per folder).

Walk, read, resolve manifests, chunk (in this process or with helper processes) and check taxonomy:
everything ``docs-mcp build`` does before indexing. ``extra_info`` holds this process's CPU seconds
(helpers' CPU is not included), which is steadier than wall time on a shared machine.
Run: ``.venv/bin/python -m pytest benchmarks/test_corpus_load.py -p no:cacheprovider``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from docs_mcp.corpus.loader import Corpus, load_corpus
from testkit.evaldata_sets import materialize_sdk_corpora


@pytest.fixture(scope="module")
def sdk_docs(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return materialize_sdk_corpora(evaldata_dir / "corpora", tmp_path_factory.mktemp("corpus-load") / "docs")


@pytest.mark.parametrize("workers", [1, 2])
def test_load_corpus(benchmark: Any, sdk_docs: Path, workers: int) -> None:
    cpu: list[float] = []

    def run() -> Corpus:
        start = time.process_time()
        corpus = load_corpus(sdk_docs, workers=workers)
        cpu.append(time.process_time() - start)
        return corpus

    corpus = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(
        {"files": len(corpus.files), "chunks": len(corpus.chunks), "cpu_seconds_min": round(min(cpu), 3)}
    )
    assert len(corpus.files) == 3958
