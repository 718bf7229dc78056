"""The closing-note figures of issue 20 for the evaldata sites, with any docs-mcp executable.

    .venv/bin/python tests/sites/measure_sites.py .venv/bin/docs-mcp [EVALDATA]

For each set: copy it, build it raw, ``fix --write``, build again; per build the files, chunks,
validate's findings by rule, chunks with generator syntax left (``site_leaks.leaks``) and stub
chunks (``site_leaks.is_stub``), the wall time of ``build`` and each question's gold page rank
(among the pages of the first 20 full-text hits). Prints a markdown table. Not a test: a report.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import lancedb
from site_leaks import is_stub, leaks
from site_questions import SITES


def _run(exe: str, *args: str) -> str:
    return subprocess.run([exe, *args], capture_output=True, text=True, check=False).stdout


def _measure(exe: str, docs: Path, out: Path, name: str) -> dict[str, object]:
    started = time.monotonic()
    _run(exe, "build", "--docs-dir", str(docs), "--out", str(out), "--quiet")
    seconds = time.monotonic() - started
    report = json.loads(_run(exe, "validate", "--docs-dir", str(docs), "--json"))
    rules = Counter(str(f["rule"]) for f in report["findings"])
    rows = lancedb.connect(str(out / ".lancedb")).open_table("chunks").to_arrow().to_pylist()
    ranks = []
    for question, gold in SITES[name][1]:
        hits = json.loads(_run(exe, "search", "--index", str(out), question, "--json", "--limit", "20"))[
            "hits"
        ]
        pages = list(dict.fromkeys(hit["file"] for hit in hits))
        ranks.append(pages.index(gold) + 1 if gold in pages else None)
    return {
        "files": report["files"],
        "chunks": len(rows),
        "findings": dict(sorted(rules.items())),
        "leaky": sum(bool(leaks(str(row["markdown"]))) for row in rows),
        "stubs": sum(is_stub(str(row["markdown"])) for row in rows),
        "urls": sum(bool(row.get("url")) for row in rows),
        "seconds": round(seconds, 2),
        "ranks": ranks,
    }


def main() -> None:
    exe = sys.argv[1]
    evaldata = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).parents[3] / "shared" / "evaldata"
    for name in sorted(SITES):
        with tempfile.TemporaryDirectory() as work:
            shutil.copytree(evaldata / "sites" / name, Path(work) / name)
            docs = Path(work) / name / "docs"
            raw = _measure(exe, docs, Path(work) / "raw", name)
            _run(exe, "fix", "--docs-dir", str(docs), "--write")
            instructions = json.loads((docs / ".docs-mcp.json").read_text())["mcpServerInstructions"]
            fixed = _measure(exe, docs, Path(work) / "fixed", name)
        print(f"## {name}\n\nfix names it: {instructions.split(' (')[0]!r}\n")
        print("| build | files | chunks | urls | leaky chunks | stub chunks | build s | findings | ranks |")
        print("|---|---|---|---|---|---|---|---|---|")
        for label, m in (("raw", raw), ("after fix --write", fixed)):
            print(
                f"| {label} | {m['files']} | {m['chunks']} | {m['urls']} | {m['leaky']} | {m['stubs']} | "
                f"{m['seconds']} | {m['findings']} | {m['ranks']} |"
            )
        print()


if __name__ == "__main__":
    main()
