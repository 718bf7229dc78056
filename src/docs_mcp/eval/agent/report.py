"""The agent-eval report: per arm (with and without the docs server), per category and per
scenario, pass rate, activation rate, turns, tokens, cost, tool calls and time; the with/without
comparison (gained, lost, both pass, both fail); deltas against a previous report."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError
from docs_mcp.eval.agent.results import RunResult

__all__ = ["AgentReport", "compare_arms", "load_baseline", "summarise"]

_DELTA_FIELDS = (
    "pass_rate",
    "activation_rate",
    "mean_turns",
    "input_tokens",
    "output_tokens",
    "cost",
    "seconds",
)


def summarise(runs: Sequence[RunResult]) -> dict[str, Any]:
    """Totals and rates over ``runs`` (one arm's, or one category's in one arm)."""
    count = len(runs)
    tools: Counter[str] = Counter()
    for run in runs:
        tools.update(run.tool_calls)
    costs = [run.cost for run in runs]
    served = [run for run in runs if run.arm == "with"]
    return {
        "scenarios": count,
        "passed": sum(run.status == "passed" for run in runs),
        "errors": sum(run.status == "error" for run in runs),
        "pass_rate": _rate(sum(run.status == "passed" for run in runs), count),
        # Only where the server was on offer can the agent have searched it.
        "activation_rate": _rate(sum(run.activated for run in served), len(served)) if served else None,
        "mean_turns": round(sum(run.turns for run in runs) / count, 2) if count else None,
        "input_tokens": sum(run.input_tokens for run in runs),
        "output_tokens": sum(run.output_tokens for run in runs),
        "cost": round(sum(c for c in costs if c is not None), 6) if costs and None not in costs else None,
        "tool_calls": dict(sorted(tools.items())),
        "seconds": round(sum(run.seconds for run in runs), 2),
    }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def compare_arms(runs: Sequence[RunResult]) -> dict[str, list[str]]:
    """Each scenario run in both arms: ``gained`` (passes only with the server), ``lost`` (only
    without), ``both_pass``, ``both_fail``."""
    by_arm = {(run.scenario, run.arm): run.status == "passed" for run in runs}
    classes: dict[str, list[str]] = {"gained": [], "lost": [], "both_pass": [], "both_fail": []}
    for scenario in sorted({run.scenario for run in runs}):
        if (scenario, "with") not in by_arm or (scenario, "without") not in by_arm:
            continue
        with_server, without = by_arm[(scenario, "with")], by_arm[(scenario, "without")]
        name = {(True, False): "gained", (False, True): "lost", (True, True): "both_pass"}.get(
            (with_server, without), "both_fail"
        )
        classes[name].append(scenario)
    return classes


def load_baseline(path: Path) -> dict[str, Any]:
    """A previous report (``--out`` of an earlier run); raises ``ConfigError`` if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the baseline report {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("summary"), dict) or "runs" not in data:
        raise ConfigError(f"{path} is not an agent-eval report (no summary and runs); pass an earlier --out")
    return data


@dataclass
class AgentReport:
    """Every run of one agent-eval, and what it adds up to."""

    scenarios: str
    index: str
    provider: str
    model: str
    arms: tuple[str, ...]
    runs: list[RunResult]
    seconds: float = 0.0
    resumed: int = 0  # runs taken from the results file of an earlier, interrupted run
    baseline: dict[str, Any] | None = field(default=None, repr=False)

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per arm."""
        return {arm: summarise([run for run in self.runs if run.arm == arm]) for arm in self.arms}

    def categories(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Per category, per arm."""
        names = sorted({run.category for run in self.runs})
        return {
            name: {
                arm: summarise([run for run in self.runs if run.category == name and run.arm == arm])
                for arm in self.arms
            }
            for name in names
        }

    def deltas(self) -> dict[str, Any] | None:
        """Against the baseline: each arm's figures now minus then, and the runs whose outcome changed."""
        if self.baseline is None:
            return None
        then_summary: dict[str, Any] = self.baseline["summary"]
        arms: dict[str, dict[str, float | None]] = {}
        for arm, now in self.summary().items():
            then = then_summary.get(arm)
            if isinstance(then, dict):
                arms[arm] = {name: _minus(now.get(name), then.get(name)) for name in _DELTA_FIELDS}
        before = {(run["scenario"], run["arm"]): run.get("status") for run in self.baseline["runs"]}
        changed = [
            {
                "scenario": run.scenario,
                "arm": run.arm,
                "was": before[(run.scenario, run.arm)],
                "now": run.status,
            }
            for run in self.runs
            if (run.scenario, run.arm) in before and before[(run.scenario, run.arm)] != run.status
        ]
        return {"model": self.baseline.get("model"), "arms": arms, "changed": changed}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the figures first, then every run."""
        return {
            "scenarios": self.scenarios,
            "index": self.index,
            "provider": self.provider,
            "model": self.model,
            "arms": list(self.arms),
            "seconds": round(self.seconds, 2),
            "resumed": self.resumed,
            "summary": self.summary(),
            "comparison": compare_arms(self.runs) if len(self.arms) == 2 else None,
            "categories": self.categories(),
            "baseline": self.deltas(),
            "runs": [run.to_dict() for run in self.runs],
        }


def _minus(now: Any, then: Any) -> float | None:
    if isinstance(now, int | float) and isinstance(then, int | float):
        return round(float(now) - float(then), 4)
    return None
