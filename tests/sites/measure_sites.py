"""The closing-note figures of issues 20 and 32 for the evaldata sites, with any docs-mcp command.

    .venv/bin/python tests/sites/measure_sites.py ".venv/bin/python -m docs_mcp" [EVALDATA] [SET...]

For each set: copy it, build it raw (no manifest), ``fix --write``, build again; per build the page
files, the pages indexed, chunks, chunks with generator syntax left (``site_leaks.leaks``, the set's
generator), stub chunks (``site_leaks.is_stub``), short chunks (markdown under ``SHORT``
characters), chunks with an empty heading, the name recorded, rows with a URL, the wall time of
``build`` and each question's gold page rank (among the pages of the first 20 full-text hits).
Prints a markdown table. Not a test: a report. PYTHONPATH picks the code measured (``git archive``
another commit to measure it).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import lancedb
from site_leaks import is_stub, leaks
from site_questions import DOCS, SITES

SHORT = 100  # a chunk under this many characters of markdown (or empty) says next to nothing


def _run(command: list[str], *args: str) -> str:
    return subprocess.run([*command, *args], capture_output=True, text=True, check=False).stdout


def _pages(docs: Path) -> int:
    return sum(
        1
        for path in docs.rglob("*")
        if path.suffix in (".md", ".mdx", ".rst")
        and not any(
            part.startswith((".", "_")) and part != "_index.md" for part in path.relative_to(docs).parts
        )
        and path.name != "SUMMARY.md"
    )


def _measure(command: list[str], docs: Path, out: Path, name: str) -> dict[str, object]:
    started = time.monotonic()
    _run(command, "build", "--docs-dir", str(docs), "--out", str(out), "--quiet")
    seconds = time.monotonic() - started
    if not (out / ".lancedb").is_dir():
        return {"pages": _pages(docs), "indexed": 0, "chunks": 0, "seconds": round(seconds, 2)}
    rows = lancedb.connect(str(out / ".lancedb")).open_table("chunks").to_arrow().to_pylist()
    manifest = (
        json.loads((out / "docs-mcp-index.json").read_text())
        if (out / "docs-mcp-index.json").is_file()
        else {}
    )
    ranks = []
    for question, gold in SITES[name][1]:
        found = json.loads(_run(command, "search", "--index", str(out), question, "--json", "--limit", "20"))
        pages = list(dict.fromkeys(hit["file"] for hit in found["hits"]))
        ranks.append(pages.index(gold) + 1 if gold in pages else None)
    generator = DOCS[name][1]
    return {
        "pages": _pages(docs),
        "indexed": len({row["file_path"] for row in rows}),
        "chunks": len(rows),
        "leaky": sum(bool(leaks(str(row["markdown"]), generator)) for row in rows),
        "stubs": sum(is_stub(str(row["markdown"])) for row in rows),
        "short": sum(len(str(row["markdown"]).strip()) < SHORT for row in rows),
        "no heading": sum(not row["heading"] for row in rows),
        "name": manifest.get("description"),
        "urls": sum(bool(row.get("url")) for row in rows),
        "seconds": round(seconds, 2),
        "ranks": ranks,
    }


def main() -> None:
    command = shlex.split(sys.argv[1])
    evaldata = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(__file__).parents[3] / "shared" / "evaldata"
    names = sys.argv[3:] or sorted(SITES)
    columns = (
        "pages",
        "indexed",
        "chunks",
        "leaky",
        "stubs",
        "short",
        "no heading",
        "name",
        "urls",
        "seconds",
        "ranks",
    )
    print("| set | build | " + " | ".join(columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for name in names:
        with tempfile.TemporaryDirectory() as work:
            shutil.copytree(evaldata / "sites" / name, Path(work) / name)
            docs = Path(work) / name / DOCS[name][0]
            raw = _measure(command, docs, Path(work) / "raw", name)
            _run(command, "fix", "--docs-dir", str(docs), "--write")
            fixed = _measure(command, docs, Path(work) / "fixed", name)
        for label, m in (("raw", raw), ("fixed", fixed)):
            print(f"| {name} | {label} | " + " | ".join(str(m.get(c, "-")) for c in columns) + " |")


if __name__ == "__main__":
    main()
