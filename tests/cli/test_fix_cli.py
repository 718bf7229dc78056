"""``docs-mcp fix`` at the command line: the diff with its reasons, --write, a second run, errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from docs_mcp.cli.main import main

pytestmark = pytest.mark.timeout(120)

FIXTURES = Path(__file__).parents[1] / "fix" / "fixtures" / "fix"


@pytest.fixture(autouse=True)
def plan_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Plans go to the test's own cache folder, not the user's."""
    monkeypatch.setenv("DOCS_MCP_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "fix-plans"


def test_fix_prints_the_proposal_and_writes_nothing_without_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = shutil.copytree(FIXTURES / "bootstrap_sdk" / "docs", tmp_path / "docs")
    assert main(["fix", "--docs-dir", str(docs)]) == 0
    out, err = capsys.readouterr()
    assert out == (FIXTURES / "bootstrap_sdk" / "expected.diff").read_text(encoding="utf-8")
    assert out.startswith("# .docs-mcp.json: ") and "+++ b/sdks/python/.docs-mcp.json" in out
    assert "3 files to change; run again with --write to apply" in err
    assert not (docs / ".docs-mcp.json").exists()


def test_fix_write_applies_and_a_second_run_proposes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = shutil.copytree(FIXTURES / "drift" / "docs", tmp_path / "docs")
    assert main(["fix", "--docs-dir", str(docs), "--write", "--inline"]) == 0
    assert "wrote 6 files" in capsys.readouterr().err
    assert main(["validate", "--docs-dir", str(docs), "--strict"]) == 0
    capsys.readouterr()
    assert main(["fix", "--docs-dir", str(docs), "--inline"]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "nothing to propose" in err


def test_fix_write_applies_the_dry_runs_plan_while_the_folder_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], plan_cache: Path
) -> None:
    docs = shutil.copytree(FIXTURES / "drift" / "docs", tmp_path / "docs")
    assert main(["fix", "--docs-dir", str(docs)]) == 0
    _, err = capsys.readouterr()
    assert "plan made earlier" not in err
    (plan,) = plan_cache.glob("*.json")
    # The stored plan is what --write applies: mark it, and the mark is what gets written.
    data = json.loads(plan.read_text(encoding="utf-8"))
    data["changes"][0][2] = data["changes"][0][2].replace("Search the Acme docs", "Search the planned docs")
    plan.write_text(json.dumps(data), encoding="utf-8")
    assert main(["fix", "--docs-dir", str(docs), "--write"]) == 0
    assert f"the plan made earlier ({plan}) is used" in capsys.readouterr().err
    assert "Search the planned docs" in (docs / data["changes"][0][0]).read_text(encoding="utf-8")
    assert list(plan_cache.glob("*.json")) == []  # written: forgotten


def test_fix_analyses_again_when_the_folder_or_the_settings_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], plan_cache: Path
) -> None:
    docs = shutil.copytree(FIXTURES / "bootstrap_sdk" / "docs", tmp_path / "docs")
    assert main(["fix", "--docs-dir", str(docs)]) == 0
    first = capsys.readouterr().out
    (docs / "guides" / "new.md").write_text("# New guide\n\nText.\n", encoding="utf-8")
    assert main(["fix", "--docs-dir", str(docs)]) == 0
    out, err = capsys.readouterr()
    assert "(17 pages)" in first
    assert "plan made earlier" not in err and "(18 pages)" in out
    assert main(["fix", "--docs-dir", str(docs), "--description", "Acme"]) == 0
    out, err = capsys.readouterr()
    assert "plan made earlier" not in err and "Documentation of Acme (" in out
    assert main(["fix", "--docs-dir", str(docs), "--description", "Acme"]) == 0
    assert "plan made earlier" in capsys.readouterr().err
    assert main(["fix", "--docs-dir", str(docs), "--description", "Acme", "--no-plan"]) == 0
    assert "plan made earlier" not in capsys.readouterr().err
    assert len(list(plan_cache.glob("*.json"))) == 3


def test_fix_names_what_it_cannot_resolve(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("# A\n\n```\n<!-- mcp_section_hint: {} -->\n```\n")
    assert main(["fix", "--docs-dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "1 findings fix cannot resolve remain:" in err
    assert "a.md:4: warning: hint comment inside a code block is ignored" in err


def test_fix_with_the_model_but_no_key_is_an_error_exit_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    (tmp_path / "a.md").write_text("# A\n")
    assert main(["fix", "--docs-dir", str(tmp_path), "--llm", "openai"]) == 1
    assert "docs-mcp: error: fix --llm openai needs an API key" in capsys.readouterr().err


def test_fix_of_a_missing_folder_is_an_error_exit_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fix", "--docs-dir", str(tmp_path / "nowhere")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_fix_reports_a_manifest_nested_too_deep_like_validate_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 19: fix died in a RecursionError on a manifest that validate reports as one finding."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# A\n\ntext\n")
    (docs / ".docs-mcp.json").write_text('{"version": "1", "metadata": ' + "[" * 3000 + "]" * 3000 + "}")
    assert main(["fix", "--docs-dir", str(docs), "--write"]) == 0
    printed = capsys.readouterr()
    assert "nested more than 64 levels deep (MAX_JSON_DEPTH)" in printed.out + printed.err
    assert (docs / ".docs-mcp.json").read_text().startswith('{"version": "1", "metadata": [[[')  # left alone
