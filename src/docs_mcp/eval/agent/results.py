"""One scenario run's result, and the file of results a run appends to as each scenario ends, so
that an interrupted run picks up where it stopped (``--fresh`` starts over).

The file holds one JSON object a line. A result is reused when its scenario id, arm, provider,
model and the digest of the scenario's definition all match, and it finished (passed or failed):
runs that ended in an error are tried again.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError

__all__ = ["ARMS", "ResultStore", "RunResult"]

ARMS = ("with", "without")  # with the docs server's tools, and without them (--compare)


@dataclass
class RunResult:
    """What one scenario run did and how it was judged."""

    scenario: str
    category: str
    arm: str
    provider: str
    model: str
    digest: str
    status: str = "error"  # passed, failed or error
    stop: str = ""  # stopped (the model ended), turn_limit, token_limit, budget_limit, error
    answer: str = ""
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    tool_calls: dict[str, int] = field(default_factory=dict)
    tool_errors: int = 0
    retries: int = 0
    activated: bool = False  # the agent called search_docs
    checks: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """What makes two results stand for the same run."""
        return (self.scenario, self.arm, self.provider, self.model, self.digest)

    @property
    def finished(self) -> bool:
        """Passed or failed: judged, so a resumed run need not repeat it."""
        return self.status in ("passed", "failed")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunResult:
        """The result ``data`` holds; raises ``KeyError``/``TypeError`` when it holds none."""
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)


class ResultStore:
    """The results file at ``path`` (created on the first write)."""

    def __init__(self, path: Path, fresh: bool = False) -> None:
        self.path = path
        if fresh and path.exists():
            path.unlink()

    def finished(self) -> dict[tuple[str, str, str, str, str], RunResult]:
        """The finished results already in the file, the last one of each run winning.

        Raises ``ConfigError`` for a line that is not a result (naming the file and line).
        """
        found: dict[tuple[str, str, str, str, str], RunResult] = {}
        if not self.path.exists():
            return found
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                result = RunResult.from_dict(json.loads(line))
            except (ValueError, KeyError, TypeError) as error:
                raise ConfigError(
                    f"{self.path}:{number}: not an agent-eval result ({error}); pass --fresh to start over"
                ) from None
            if result.finished:
                found[result.key] = result
        return found

    def write(self, result: RunResult) -> None:
        """Append ``result`` and flush it to disk before the next scenario ends."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")
