"""Release gates: compare a pytest-benchmark JSON report with ``benchmarks/thresholds.toml``.

    python -m benchmarks.gate .bench.json

Exits 1 listing every gate that failed, and every gate whose benchmark did not run (a gate that
silently measures nothing is a failed gate).
"""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path
from typing import Any

THRESHOLDS = Path(__file__).with_name("thresholds.toml")


def _benchmarks_by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {bench["name"]: bench for bench in report.get("benchmarks", [])}


def check(report: dict[str, Any], thresholds: dict[str, Any]) -> list[str]:
    """Every failed gate as a line of text; empty when all pass."""
    failures: list[str] = []
    benches = _benchmarks_by_name(report)
    for name, limit_ms in thresholds.get("median_ms_max", {}).items():
        bench = benches.get(name)
        if bench is None:
            failures.append(f"{name}: did not run (gate median <= {limit_ms} ms)")
            continue
        median_ms = bench["stats"]["median"] * 1000
        if median_ms > limit_ms:
            failures.append(f"{name}: median {median_ms:.2f} ms > {limit_ms} ms")
    for kind, within, word in (("extra_min", float.__ge__, ">="), ("extra_max", float.__le__, "<=")):
        for dotted, bound in thresholds.get(kind, {}).items():
            name, _, key = dotted.rpartition(".")
            value = benches.get(name, {}).get("extra_info", {}).get(key)
            if value is None:
                failures.append(f"{dotted}: not reported (gate {word} {bound})")
            elif not within(float(value), float(bound)):
                failures.append(f"{dotted}: {value} {'<' if word == '>=' else '>'} {bound}")
    return failures


def main(argv: list[str]) -> int:
    report_path = Path(argv[0] if argv else ".bench.json")
    report = json.loads(report_path.read_text())
    thresholds = tomllib.loads(THRESHOLDS.read_text())
    failures = check(report, thresholds)
    for line in failures:
        print(f"gate failed: {line}")
    passed = sum(len(thresholds.get(k, {})) for k in ("median_ms_max", "extra_min", "extra_max")) - len(
        failures
    )
    print(f"{passed} gates passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
