"""Every developer task answers ``--help`` with its own help, and ``just --list`` shows whole lines.

``./dev bench --help`` used to hand ``--help`` to pytest, print pytest's help and then fail every gate.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
TASKS = ["example", "test", "bench", "quality", "lint", "images", "ci-lint", "ci-act", "setup"]


def _dev(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REPO_ROOT / "dev"), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("task", TASKS)
def test_each_dev_task_answers_help_with_its_own_line_and_runs_nothing(task: str) -> None:
    answer = _dev(task, "--help")
    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.startswith(f"  ./dev {task} "), answer.stdout
    assert "pytest" not in answer.stdout.split("\n", 1)[0]
    assert "usage: " not in answer.stdout  # no runner's own help (pytest's begins so)


def test_an_unknown_task_prints_the_list_and_fails() -> None:
    answer = _dev("no-such-task")
    assert answer.returncode == 2
    assert all(f"./dev {task} " in answer.stdout for task in TASKS if task != "setup")


def _documented_recipes(justfile: str) -> dict[str, str]:
    """Each public recipe's whole comment block (the lines right above it), joined."""
    recipes: dict[str, str] = {}
    comment: list[str] = []
    for line in justfile.splitlines():
        if line.startswith("# "):
            comment.append(line[2:])
        elif (match := re.match(r"([a-z][\w-]*)\b[^:=\n]*:(?!=)", line)) and comment:
            recipes[match[1]] = " ".join(comment)
            comment = []
        elif not line.startswith("["):
            comment = []
    return recipes


def test_just_lists_every_recipe_with_its_whole_description() -> None:
    just = shutil.which("just") or str(REPO_ROOT / ".venv" / "bin" / "just")
    if not Path(just).exists():
        pytest.skip("just is not installed (it comes with the dev lock: ./dev setup)")
    listed = subprocess.run([just, "--list"], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    shown = {m[1]: m[2] for m in re.finditer(r"^    (\S+)[^#\n]*# (.*)$", listed.stdout, re.MULTILINE)}
    assert shown == _documented_recipes((REPO_ROOT / "justfile").read_text())
