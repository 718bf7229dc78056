"""``docs-mcp publish`` and ``docs-mcp pull`` through main() against a real registry."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from registry_support import Registry

from docs_mcp.cli.main import main
from docs_mcp.extras import install_line
from docs_mcp.indexing.pipeline import BuildOptions, build
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)
REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-artifact")
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=root / "out"))
    return root / "out"


def test_publish_prints_the_digest_and_pinned_reference_and_pull_installs_it(
    registry: Registry, out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = registry.ref("cli/index", "v1")
    assert (
        main(
            ["publish", f"oci://{ref}", "--index", str(out), "--tag", "stable", "--cache-dir", str(tmp_path)]
        )
        == 0
    )
    printed = capsys.readouterr()
    digest, pinned = printed.out.splitlines()
    assert digest.startswith("sha256:") and pinned == f"{ref}@{digest}"
    assert "tags v1, stable" in printed.err
    assert (
        main(
            [
                "pull",
                f"{registry.host}/cli/index:stable",
                "--out",
                str(tmp_path / "got"),
                "--cache-dir",
                str(tmp_path),
            ]
        )
        == 0
    )
    assert (
        f"pulled {registry.host}/cli/index:stable@{digest} into {tmp_path / 'got'}" in capsys.readouterr().out
    )
    assert main(["pull", pinned, "--out", str(tmp_path / "got"), "--cache-dir", str(tmp_path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["unchanged"] and result["downloaded_bytes"] == 0 and result["digest"] == digest


def test_publish_dry_run_shows_the_manifest_without_a_registry(
    out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ref = "registry.invalid/acme/docs:v1"  # never contacted
    assert main(["publish", ref, "--index", str(out), "--dry-run", "--cache-dir", str(tmp_path)]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["artifactType"] == "application/vnd.docs-mcp.index.v1"
    assert manifest["config"]["mediaType"] == "application/vnd.docs-mcp.index.config.v1+json"


def test_a_bad_reference_is_one_clear_line(
    tmp_path: Path, out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pull", "docs-index:v1", "--out", str(tmp_path / "x")]) == 1
    error = capsys.readouterr().err
    assert (
        error.startswith("docs-mcp: error: 'docs-index:v1' does not name a registry host")
        and error.count("\n") == 1
    )


def test_without_the_artifact_extra_the_commands_name_it(tmp_path: Path) -> None:
    script = (
        "import sys; sys.modules['oras'] = None\n"  # as if oras were not installed
        "from docs_mcp.cli.main import main\n"
        f"sys.exit(main(['pull', '127.0.0.1:9/docs:v1', '--out', {str(tmp_path / 'x')!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT
    )
    assert done.returncode == 2  # a missing extra is a usage error, like every command's
    extra = f"publishing and pulling indexes needs the artifact extra: {install_line('artifact')}"
    assert done.stderr == f"docs-mcp: error: {extra}\n"


def test_help_lists_publish_and_pull_without_importing_oras() -> None:
    script = (
        "import sys, contextlib, io\n"
        "from docs_mcp.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as shown, contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "text = shown.getvalue()\n"
        "print('publish' in text, 'pull' in text, 'oras' in sys.modules, 'requests' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=REPO_ROOT
    )
    assert done.stdout.split() == ["True", "True", "False", "False"], done.stderr
