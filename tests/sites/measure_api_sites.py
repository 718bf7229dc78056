"""The figures of issue 32 for the sets whose API reference comes from source, with any docs-mcp.

    .venv/bin/python tests/sites/measure_api_sites.py .venv/bin/docs-mcp [EVALDATA]

For flask and openai-agents: copy the set, build it raw (full text), and print the pages and those
indexed, chunks, chunks with reStructuredText or mkdocstrings syntax left (``site_leaks.rst_leaks``),
the wall time of ``build`` and each question's rank (the gold section among the first 10 hits).
Not a test: a report (timings vary by 30% and more on a shared machine).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lancedb
from site_leaks import rst_leaks
from test_api_sites import SETS


def _run(exe: str, *args: str) -> str:
    return subprocess.run([exe, *args], capture_output=True, text=True, check=False).stdout


def main() -> None:
    exe = sys.argv[1]
    evaldata = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).parents[3] / "shared" / "evaldata"
    print("| set | pages | indexed | chunks | leaked chunks | build s | ranks |")
    print("|---|---|---|---|---|---|---|")
    for name, (suffix, questions) in sorted(SETS.items()):
        with tempfile.TemporaryDirectory() as work:
            shutil.copytree(evaldata / "sites" / name, Path(work) / name)
            docs, index = Path(work) / name / "docs", Path(work) / "index"
            started = time.monotonic()
            _run(exe, "build", "--docs-dir", str(docs), "--out", str(index), "--quiet")
            seconds = time.monotonic() - started
            pages = {p.relative_to(docs).as_posix() for p in docs.rglob(f"*{suffix}")}
            table = lancedb.connect(str(index / ".lancedb")).open_table("chunks")
            rows = table.to_arrow().select(["id", "file_path", "markdown", "text"]).to_pylist()
            indexed = {str(row["file_path"]) for row in rows} & pages
            leaky = sum(bool(rst_leaks(str(r["markdown"])) + rst_leaks(str(r["text"]))) for r in rows)
            ranks = []
            for question, gold in questions:
                out = _run(exe, "search", "--index", str(index), question, "--json", "--limit", "10")
                hits = [hit["chunk_id"] for hit in json.loads(out)["hits"]]
                ranks.append(hits.index(gold) + 1 if gold in hits else None)
        print(f"| {name} | {len(pages)} | {len(indexed)} | {len(rows)} | {leaky} | {seconds:.1f} | {ranks} |")


if __name__ == "__main__":
    main()
