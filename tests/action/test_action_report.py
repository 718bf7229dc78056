"""action/report.py: the Action's outputs and job summary from real `build --json` and
`publish --json` output (examples/docs built and published to a real registry)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from registry_support import Registry

from docs_mcp.cli.main import main

pytestmark = pytest.mark.timeout(120)

REPORT = Path(__file__).resolve().parents[2] / "action" / "report.py"


def _report(work: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPORT), str(work)],
        env={"PATH": os.environ["PATH"], **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_outputs_and_summary_name_the_digest_pinned_artifact_and_how_to_serve_it(
    examples_docs: Path, registry: Registry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    assert (
        main(["build", "--docs-dir", str(examples_docs), "--out", str(work / "index"), "--quiet", "--json"])
        == 0
    )
    (work / "build.json").write_text(capsys.readouterr().out)
    ref = registry.ref("acme/docs-index", "idx-0123456789ab")
    publish = ["publish", ref, "--index", str(work / "index"), "--tag", "latest", "--json"]
    assert main([*publish, "--cache-dir", str(tmp_path / "cache")]) == 0
    (work / "publish.json").write_text(capsys.readouterr().out)
    (work / "serve-image.txt").write_text(f"{registry.host}/acme/docs-index-serve@sha256:{'c' * 64}\n")

    ran = _report(
        work, ERRORS="0", WARNINGS="2", DOCS_DIR="docs", SERVE_BASE="ghcr.io/acme/docs-mcp-serve:v1"
    )
    assert ran.returncode == 0, ran.stderr
    outputs = dict(line.split("=", 1) for line in (work / "outputs.txt").read_text().splitlines())
    digest = outputs["digest"]
    assert outputs["reference"] == f"{ref}@{digest}"
    assert int(outputs["chunk-count"]) > 50
    assert outputs["serve-image"] == f"{registry.host}/acme/docs-index-serve@sha256:{'c' * 64}"
    summary = (work / "summary.md").read_text()
    assert "| 13 | " in summary and "0 errors, 2 warnings" in summary and "full text only" in summary
    assert f"`{ref}@{digest}` (tags `idx-0123456789ab`, `latest`)" in summary
    assert f"-e DOCS_MCP_INDEX=oci://{ref}@{digest} ghcr.io/acme/docs-mcp-serve:v1" in summary
    assert f"docker run --rm -p 127.0.0.1:8000:8000 {outputs['serve-image']}" in summary


def test_a_failed_validation_summarises_the_counts_and_sets_no_output(tmp_path: Path) -> None:
    ran = _report(tmp_path, STAGE="validate", ERRORS="1", WARNINGS="1", STRICT="1", DOCS_DIR="site/docs")
    assert ran.returncode == 0, ran.stderr
    assert not (tmp_path / "outputs.txt").exists()
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("## docs-mcp: `site/docs`")
    assert "Validation failed: 1 error, 1 warning (fail-on-warnings: warnings fail)." in summary
