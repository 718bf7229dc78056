"""The Action and the workflows as files: inputs reach the script only through the environment,
third-party actions are pinned by SHA with their version, permissions are granted per job, and the
release's pinning of action.yml keeps it a valid action. (./dev ci-lint checks them against GitHub's
schemas, actionlint and zizmor; act runs the self-test workflow: tests/images/test_action_selftest.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.timeout(60)

REPO_ROOT = Path(__file__).resolve().parents[2]
ACTION = REPO_ROOT / "action.yml"
WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml")) + sorted(
    (REPO_ROOT / "examples" / "workflows").glob("*.yml")
)
_USES = re.compile(r"^\s*(?:- )?uses: (\S+?)(?:\s+#\s*(\S+))?\s*$", re.MULTILINE)


def _load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_every_input_reaches_the_script_as_an_environment_variable_and_no_expression_is_in_a_script() -> None:
    action = _load(ACTION)
    [step] = action["runs"]["steps"]
    for name in action["inputs"]:
        variable = "DOCS_MCP_ACTION_" + name.upper().replace("-", "_")
        assert step["env"][variable] == f"${{{{ inputs.{name} }}}}", name
        assert variable in (REPO_ROOT / "action" / "run.sh").read_text(encoding="utf-8"), name
    assert "${{" not in step["run"]


def test_every_output_comes_from_the_script() -> None:
    outputs = _load(ACTION)["outputs"]
    report = (REPO_ROOT / "action" / "report.py").read_text(encoding="utf-8")
    for name, output in outputs.items():
        assert output["value"] == f"${{{{ steps.run.outputs.{name} }}}}"
        assert f'"{name}"' in report, name


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_third_party_actions_are_pinned_by_full_sha_with_their_version_in_a_comment(workflow: Path) -> None:
    uses = _USES.findall(workflow.read_text(encoding="utf-8"))
    assert uses
    for target, version in uses:
        if target.startswith("./"):
            continue
        assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", target), target
        assert re.fullmatch(r"v\d+(\.\d+)*", version), f"{target}: the version as a comment"


def test_the_same_action_is_pinned_to_the_same_sha_everywhere() -> None:
    pins: dict[str, set[str]] = {}
    for workflow in WORKFLOWS:
        for target, _ in _USES.findall(workflow.read_text(encoding="utf-8")):
            name, _, sha = target.partition("@")
            if not target.startswith("./") and "OWNER/" not in name:
                pins.setdefault(name, set()).add(sha)
    assert {name: len(shas) for name, shas in pins.items()} == dict.fromkeys(pins, 1)


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_permissions_are_empty_at_the_top_and_granted_per_job(workflow: Path) -> None:
    data = _load(workflow)
    triggers = data[True]  # YAML 1.1 reads the key `on` as True
    assert "pull_request_target" not in triggers
    assert data["permissions"] == {}
    for name, job in data["jobs"].items():
        granted = job["permissions"]
        assert granted.get("contents") in ("read", "write"), name
        pushes = "docker push" in str(job) or "uses: OWNER/docs-mcp" in workflow.read_text()
        assert (granted.get("packages") == "write") == pushes, f"{workflow.name} {name}: packages: write"


def test_the_release_pins_the_images_by_digest_and_the_action_stays_valid(tmp_path: Path) -> None:
    pinned = tmp_path / "action.yml"
    pinned.write_bytes(ACTION.read_bytes())
    digest = "sha256:" + "ab" * 32
    pins = {
        "build-image": f"ghcr.io/acme/docs-mcp-build@{digest}",
        "serve-image-base": f"ghcr.io/acme/docs-mcp-serve@{digest}",
        "serve-local-image-base": f"ghcr.io/acme/docs-mcp-serve@{digest}",
    }
    script = [sys.executable, str(REPO_ROOT / "scripts" / "pin-action-images"), str(pinned)]
    subprocess.run([*script, *(f"{k}={v}" for k, v in pins.items())], check=True, timeout=30)
    before, after = _load(ACTION), _load(pinned)
    assert {name: after["inputs"][name]["default"] for name in pins} == pins
    for name in pins:
        after["inputs"][name]["default"] = before["inputs"][name]["default"]
    assert after == before  # nothing else changed
    checked = subprocess.run(
        [
            str(Path(sys.executable).parent / "check-jsonschema"),
            "--builtin-schema",
            "vendor.github-actions",
            str(pinned),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_pinning_refuses_a_tag_and_an_unknown_input_and_changes_nothing(tmp_path: Path) -> None:
    pinned = tmp_path / "action.yml"
    pinned.write_bytes(ACTION.read_bytes())
    script = [sys.executable, str(REPO_ROOT / "scripts" / "pin-action-images"), str(pinned)]
    for bad in ("build-image=ghcr.io/acme/docs-mcp-build:v1", f"nope=ghcr.io/a/b@sha256:{'0' * 64}"):
        ran = subprocess.run([*script, bad], capture_output=True, text=True, timeout=30, check=False)
        assert ran.returncode == 2
        assert "pin-action-images:" in ran.stderr
    assert pinned.read_bytes() == ACTION.read_bytes()
