"""``docs-mcp validate`` at the command line: output format, JSON, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.cli.main import main

pytestmark = pytest.mark.timeout(60)


def test_clean_example_docs_exit_zero_with_only_a_summary(
    examples_docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--docs-dir", str(examples_docs)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("validated ") and err.rstrip().endswith("0 errors, 0 warnings")


def test_errors_print_one_line_per_finding_and_exit_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h2"}}')
    (tmp_path / "a.md").write_text('# A\n\n<!-- mcp_metadata: {"team": "core"} -->\n\n## B\n\nText.\n')
    assert main(["validate", "--docs-dir", str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("a.md:3: error: unknown metadata key 'team'")
    assert lines[0].endswith("[unknown-metadata-key]")
    assert "1 error, 0 warnings" in err


def test_warnings_alone_exit_zero_and_files_without_a_strategy_are_one_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a.md", "b.md", "c.md", "d.md", "e.md"):
        (tmp_path / name).write_text("# A\n")
    assert main(["validate", "--docs-dir", str(tmp_path)]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        "warning: 5 files declare no chunking strategy and use the catch-all **/*.md -> h2 "
        f"(a.md, b.md, c.md and 2 more); run `docs-mcp fix --docs-dir {tmp_path}` to propose manifests "
        "[default-strategy]"
    ]


def test_verbose_lists_every_file_a_summary_stands_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a.md", "b.md", "c.md", "d.md", "e.md"):
        (tmp_path / name).write_text("# A\n")
    assert main(["validate", "--docs-dir", str(tmp_path), "--verbose"]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[1:] == ["  a.md", "  b.md", "  c.md", "  d.md", "  e.md"]


def test_strict_makes_warnings_exit_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    assert main(["validate", "--docs-dir", str(tmp_path), "--strict"]) == 1
    _, err = capsys.readouterr()
    assert err.rstrip().endswith("0 errors, 1 warning (strict: warnings fail)")
    (tmp_path / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h2"}}')
    assert main(["validate", "--docs-dir", str(tmp_path), "--strict"]) == 0


def test_an_unknown_manifest_key_is_a_warning_at_its_line_naming_the_closest_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = (
        '{\n  "version": "1",\n  "strategy": {"chunk_by": "h2"},\n  "instructions": "Search first."\n}\n'
    )
    (tmp_path / ".docs-mcp.json").write_text(manifest)
    (tmp_path / "a.md").write_text("# A\n")
    assert main(["validate", "--docs-dir", str(tmp_path)]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == [
        ".docs-mcp.json:4: warning: unknown key 'instructions' at the manifest root is ignored; "
        "did you mean 'mcpServerInstructions'? [unknown-manifest-key]"
    ]


def test_json_format_prints_one_object_with_findings_and_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h9"}}')
    (tmp_path / "a.md").write_text("# A\n\nText.\n")
    assert main(["validate", "--docs-dir", str(tmp_path), "--json"]) == 1
    out, _ = capsys.readouterr()
    data = json.loads(out)
    assert main(["validate", "--docs-dir", str(tmp_path), "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["findings"] == data["findings"]
    counts = (data["ok"], data["files"], data["chunks"], data["errors"], data["warnings"])
    assert counts == (False, 1, 1, 1, 0)
    assert data["findings"][0]["path"] == ".docs-mcp.json"
    assert data["findings"][0]["rule"] == "invalid-manifest"
    assert data["findings"][0]["message"].startswith("strategy.chunk_by: 'h9' is not one of")


def test_json_lists_every_file_of_a_summary_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("a.md", "b.md", "c.md", "d.md"):
        (tmp_path / name).write_text("# A\n")
    assert main(["validate", "--docs-dir", str(tmp_path), "--json"]) == 0
    [finding] = json.loads(capsys.readouterr().out)["findings"]
    assert (finding["path"], finding["rule"]) == ("", "default-strategy")
    assert finding["paths"] == ["a.md", "b.md", "c.md", "d.md"]


def test_a_missing_docs_dir_is_a_clear_error_with_exit_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", "--docs-dir", str(tmp_path / "nowhere")]) == 1
    _, err = capsys.readouterr()
    assert "docs-mcp: error: docs directory" in err and "does not exist" in err
