"""Gates: compare a pytest-benchmark JSON report with ``benchmarks/thresholds.toml``.

    python -m benchmarks.gate .bench.json [--group ci] [--previous OLD.json] [--markdown REPORT.md]

Exits 1 listing every gate that failed, and every gate whose benchmark did not run (a gate that
silently measures nothing is a failed gate). ``--group`` checks only that group's gates (``ci``:
the deterministic ones .ci/run checks on every change); without it every gate is checked.
``--markdown`` writes the figures, the verdicts and, from ``--previous``, the last run's figures
beside them (``just bench`` writes ``bench-report.md`` this way). The ``release`` group is checked by
the release tests against the images (:func:`check_figures`), and here only when named.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

from benchmarks.report import markdown
from testkit.thresholds import THRESHOLDS, gates, verdicts


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gate", description=__doc__)
    parser.add_argument("report", type=Path, nargs="?", default=Path(".bench.json"))
    parser.add_argument("--group", action="append", help="check only this group's gates (repeatable)")
    parser.add_argument("--previous", type=Path, help="the last run's report, shown beside this one")
    parser.add_argument("--markdown", type=Path, help="write figures and verdicts to this file")
    args = parser.parse_args(argv)
    thresholds = tomllib.loads(THRESHOLDS.read_text())
    chosen = gates(thresholds, args.group)
    report = json.loads(args.report.read_text()) if args.report.is_file() else {}
    if not report:
        print(f"no benchmark report at {args.report}: every gate fails")
    judged = verdicts(report, chosen)
    if args.markdown is not None:
        previous = (
            json.loads(args.previous.read_text()) if args.previous and args.previous.is_file() else None
        )
        args.markdown.write_text(markdown(report, previous, judged))
    failures = [v.message for v in judged if not v.passed]
    for line in failures:
        print(f"gate failed: {line}")
    print(f"gates: {len(judged) - len(failures)} passed, {len(failures)} failed")
    return 1 if failures or not chosen else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
