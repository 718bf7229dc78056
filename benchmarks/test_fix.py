"""``fix`` on a raw SDK folder (issue 31): the mistral docs as they come (2,550 files, no manifest).

``test_fix_raw_sdk_folder`` times the whole analysis (outlines, layout, bootstrap drafts, repair
rounds with the folder chunked once and only changed files again), three rounds; ``extra_info``
holds this process's CPU seconds (chunking helpers' not included). ``test_fix_write_after_a_dry_run``
times what ``fix --write`` costs after a dry run of the same folder and settings (the stored plan is
applied: the folder is walked for its digest, nothing is analysed), over the analysis in the same run.
Run: ``.venv/bin/python -m pytest benchmarks/test_fix.py -p no:cacheprovider``.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from docs_mcp.fix import FixProposal, fix

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def mistral(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(
        shutil.copytree(evaldata_dir / "corpora" / "mistral", tmp_path_factory.mktemp("fix") / "mistral")
    )


def test_fix_raw_sdk_folder(benchmark: Any, mistral: Path) -> None:
    cpu: list[float] = []

    def run() -> FixProposal:
        start = time.process_time()
        proposal = fix(mistral)
        cpu.append(time.process_time() - start)
        return proposal

    proposal = benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=0)
    benchmark.extra_info.update({"changes": len(proposal.changes), "cpu_seconds_min": round(min(cpu), 3)})
    assert proposal.mode == "bootstrap" and proposal.remaining == ()
    assert all(change.path.endswith(".docs-mcp.json") for change in proposal.changes)


def test_fix_write_after_a_dry_run(benchmark: Any, mistral: Path, tmp_path: Path) -> None:
    plans = tmp_path / "plans"
    start = time.perf_counter()
    dry = fix(mistral, plans=plans)
    analysed = time.perf_counter() - start
    recalled = benchmark.pedantic(lambda: fix(mistral, plans=plans), rounds=5, iterations=1)
    assert recalled.changes == dry.changes and recalled.plan is not None
    benchmark.extra_info.update(
        {
            "analysis_s": round(analysed, 3),
            "speedup": round(analysed / benchmark.stats.stats.median, 1),
        }
    )
