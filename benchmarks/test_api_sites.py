"""``load_corpus`` on the sets whose API reference comes from source (issue 32): flask (Sphinx,
reStructuredText read with docutils, autodoc over ``src/flask``) and openai-agents (mkdocs, 244
mkdocstrings stub pages over ``src/agents``). ``extra_info`` holds the files, chunks and the cost of
resolution alone: griffe loading the package statically (``ApiSource``'s first lookup).
Run: ``.venv/bin/python -m pytest benchmarks/test_api_sites.py -p no:cacheprovider``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from docs_mcp.corpus.loader import Corpus, load_corpus
from docs_mcp.parse.pyapi import ApiOptions, ApiSource

# set -> (the package folder, an object of it)
SETS = {"flask": ("src", "flask.Flask"), "openai-agents": ("src", "agents.agent.Agent")}


@pytest.mark.parametrize("name", sorted(SETS))
def test_load_api_site(benchmark: Any, evaldata_dir: Path, name: str) -> None:
    site = evaldata_dir / "sites" / name
    folder, target = SETS[name]
    started = time.perf_counter()
    entry, problem = ApiSource([site / folder], root=site).document(target, ApiOptions(), "markdown")
    griffe_seconds = time.perf_counter() - started
    assert entry is not None, problem

    def run() -> Corpus:
        return load_corpus(site / "docs", workers=1)

    corpus = benchmark.pedantic(run, rounds=2, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update(
        {
            "files": len(corpus.files),
            "chunks": len(corpus.chunks),
            "griffe_load_seconds": round(griffe_seconds, 2),
        }
    )
    assert len(corpus.files) >= 76
