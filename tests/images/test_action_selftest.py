"""The GitHub Action end to end: its self-test workflow under act, offline (scripts/act-selftest).

act runs .github/workflows/action-selftest.yml on this machine (its host executor; the third-party
actions replaced by .github/act/ stand-ins, nothing downloaded, as root inside a network namespace
with only loopback): the workflow builds the images from this checkout, runs `uses: ./` on
examples/docs against a real registry, checks the outputs by pulling the artifact by digest and
searching the baked serve image, and runs the Action on a docs folder with a deliberate error. Here
we check what the workflow cannot see from inside: the annotations act reported and what the
registry holds.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
from pathlib import Path

import pytest
from image_support import REPO_ROOT
from registry_support import Registry

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]

_OUTPUT = re.compile(r"::set-output:: (reference|digest|chunk-count|serve-image)=(\S*)")
_ANNOTATION = re.compile(r"(::(?:error|warning) [^\n]*)")


def test_the_action_publishes_examples_docs_and_annotates_a_broken_folder_under_act(
    registry: Registry, tmp_path: Path
) -> None:
    started = time.monotonic()
    ran = subprocess.run(
        [str(REPO_ROOT / "scripts" / "act-selftest"), registry.host],
        capture_output=True,
        text=True,
        timeout=840,
        check=False,
    )
    seconds = time.monotonic() - started
    log = ran.stdout + ran.stderr
    assert ran.returncode == 0, log[-8000:]
    assert "Job succeeded" in log
    print(f"act self-test: {seconds:.0f} s")

    outputs: dict[str, str] = {}
    for name, value in _OUTPUT.findall(log):
        outputs.setdefault(name, value)  # the first: the examples/docs step
    digest = outputs["digest"]
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest)
    assert outputs["reference"] == f"{registry.host}/selftest/docs-index:idx-selftest@{digest}"
    assert int(outputs["chunk-count"]) > 50
    assert outputs["serve-image"].startswith(f"{registry.host}/selftest/docs-index-serve@sha256:")
    print(f"published {outputs['reference']}")

    # The registry holds the artifact under both tags, by that digest (skopeo: an independent client).
    for tag in ("idx-selftest", "latest"):
        raw = subprocess.run(
            [
                "skopeo",
                "inspect",
                "--raw",
                "--tls-verify=false",
                f"docker://{registry.host}/selftest/docs-index:{tag}",
            ],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
        manifest = json.loads(raw)
        assert manifest["artifactType"] == "application/vnd.docs-mcp.index.v1"
        assert f"sha256:{hashlib.sha256(raw).hexdigest()}" == digest

    # The broken folder: one annotation per finding on its file and line, relative to the checkout.
    annotations = [a for a in _ANNOTATION.findall(log) if "docs-mcp action" not in a]
    for annotation in annotations:
        print(annotation)
    golden = REPO_ROOT / "tests" / "data" / "action" / "broken-docs-annotations.txt"
    assert annotations == golden.read_text(encoding="utf-8").splitlines()
    # ... and the files and lines they name are the ones holding the problem.
    broken = REPO_ROOT / "tests" / "data" / "action" / "broken-docs"
    assert '"instructions"' in (broken / ".docs-mcp.json").read_text().splitlines()[3]
    assert '"team"' in (broken / "guides" / "setup.md").read_text().splitlines()[4]
    # Nothing was published for it.
    assert not (
        registry.storage / "docker" / "registry" / "v2" / "repositories" / "selftest" / "broken"
    ).exists()
