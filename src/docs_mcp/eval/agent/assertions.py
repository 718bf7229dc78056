"""Judge a finished run: each assertion of the scenario on the final answer, on the files in the
scenario folder, or a script that must exit 0 there. A soft assertion is reported, not counted."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.eval.agent.scenarios import Assertion
from docs_mcp.eval.agent.workspace import Workspace, WorkspaceRefused, shell_env

__all__ = ["Checked", "check_all", "passed"]

MAX_DETAIL = 300


@dataclass(frozen=True)
class Checked:
    """One assertion's outcome and, when it failed, why."""

    label: str
    ok: bool
    soft: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"label": self.label, "ok": self.ok, "soft": self.soft, "detail": self.detail}


def passed(checks: Sequence[Checked]) -> bool:
    """True when every hard assertion holds."""
    return all(check.ok for check in checks if not check.soft)


def check_all(assertions: Sequence[Assertion], answer: str, workspace: Workspace) -> list[Checked]:
    """Every assertion judged against ``answer`` and the folder of ``workspace``."""
    return [_check(assertion, answer, workspace) for assertion in assertions]


def _check(assertion: Assertion, answer: str, workspace: Workspace) -> Checked:
    ok, detail = _judge(assertion, answer, workspace)
    return Checked(assertion.label, ok, assertion.soft, "" if ok else detail[:MAX_DETAIL])


def _judge(assertion: Assertion, answer: str, workspace: Workspace) -> tuple[bool, str]:
    kind, value = assertion.kind, assertion.value
    if kind == "answer_contains":
        return value in answer, "the answer does not contain it"
    if kind == "answer_not_contains":
        return value not in answer, "the answer contains it"
    if kind == "answer_regex":
        return re.search(value, answer) is not None, "the answer does not match"
    if kind == "file":
        return _judge_file(assertion, workspace)
    return _run_script(value, assertion.timeout, workspace.root)


def _judge_file(assertion: Assertion, workspace: Workspace) -> tuple[bool, str]:
    try:
        path = workspace.resolve(assertion.value)
    except WorkspaceRefused as refused:
        return False, str(refused)
    if not path.is_file():
        return False, "the file does not exist"
    text = path.read_text(encoding="utf-8", errors="replace")
    if assertion.contains is not None and assertion.contains not in text:
        return False, "the file does not contain it"
    if assertion.not_contains is not None and assertion.not_contains in text:
        return False, "the file contains it"
    if assertion.regex is not None and re.search(assertion.regex, text) is None:
        return False, "the file does not match"
    return True, ""


def _run_script(command: str, timeout: float, folder: Path) -> tuple[bool, str]:
    try:
        done = subprocess.run(
            command, shell=True, cwd=folder, capture_output=True, text=True, timeout=timeout, env=shell_env()
        )
    except subprocess.TimeoutExpired:
        return False, f"ran past {timeout:g} s"
    if done.returncode == 0:
        return True, ""
    said = " / ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
    return False, f"exited {done.returncode}: {said or 'no output'}"
