"""``validate --format github``: GitHub Actions workflow commands that land on the file and line.

The runner parses ``::CMD k=v,k=v::DATA`` and percent-decodes; ``parse_command`` below does what it
does (actions/runner ``ActionCommand.TryParseV2``), so each test proves the annotation GitHub shows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_mcp.cli.main import main
from docs_mcp.corpus.findings import SummaryFinding
from docs_mcp.corpus.validation import ValidationReport, validate
from docs_mcp.corpus.validation_output import (
    OutputOptions,
    annotation_path,
    escape_data,
    escape_property,
    github,
    github_command,
)
from docs_mcp.errors import Finding

pytestmark = pytest.mark.timeout(60)

_DECODE_DATA = (("%0D", "\r"), ("%0A", "\n"), ("%25", "%"))
_DECODE_PROPERTY = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))


def _decode(value: str, table: tuple[tuple[str, str], ...]) -> str:
    for escaped, plain in table:
        value = value.replace(escaped, plain)
    return value


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """(command, properties, message) of one workflow command line, decoded as the runner does."""
    match = re.fullmatch(r"::(\w+)(?: ([^:]*))?::(.*)", line)
    assert match, f"not a workflow command: {line!r}"
    properties = {}
    for pair in (match.group(2) or "").split(","):
        if pair:
            key, _, value = pair.partition("=")
            properties[key] = _decode(value, _DECODE_PROPERTY)
    return match.group(1), properties, _decode(match.group(3), _DECODE_DATA)


def test_escaping_follows_the_workflow_command_syntax() -> None:
    assert escape_data("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext: a, b"
    assert escape_property("50% done\r\nnext: a, b") == "50%25 done%0D%0Anext%3A a%2C b"


@given(st.text())
def test_any_message_and_path_survive_the_runner_decoding(value: str) -> None:
    assert _decode(escape_data(value), _DECODE_DATA) == value
    assert _decode(escape_property(value), _DECODE_PROPERTY) == value


def test_an_error_becomes_one_annotation_on_its_file_and_line_relative_to_the_workspace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "site" / "docs"
    docs.mkdir(parents=True)
    (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h2"}}')
    (docs / "a.md").write_text('# A\n\n<!-- mcp_metadata: {"team": "core"} -->\n\n## B\n\nText.\n')
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    monkeypatch.chdir(docs)  # the working folder does not matter: the workspace does
    assert main(["validate", "--docs-dir", ".", "--format", "github"]) == 1
    out, err = capsys.readouterr()
    [line] = out.splitlines()
    command, properties, message = parse_command(line)
    assert command == "error"
    assert properties == {"file": "site/docs/a.md", "line": "3", "title": "docs-mcp unknown-metadata-key"}
    assert message.startswith("unknown metadata key 'team'")
    assert "1 error, 0 warnings" in err


def test_without_a_workspace_paths_are_relative_to_the_current_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "bad.md").write_bytes(b"# Bad \xff\n")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--docs-dir", "docs", "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    parsed = [parse_command(line) for line in lines]
    assert ("error", "docs/bad.md") in [(c, p.get("file")) for c, p, _ in parsed]


def test_warnings_are_warning_commands_and_a_summary_has_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = '{\n  "version": "1",\n  "strategy": {"chunk_by": "h2"},\n  "instructions": "x"\n}\n'
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".docs-mcp.json").write_text(manifest)
    (tmp_path / "sub" / "a.md").write_text("# A\n")
    for name in ("b.md", "c.md"):
        (tmp_path / name).write_text("# B\n")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    assert main(["validate", "--docs-dir", str(tmp_path), "--format", "github", "--verbose"]) == 0
    parsed = [parse_command(line) for line in capsys.readouterr().out.splitlines()]
    assert [(c, p.get("file"), p.get("line"), p["title"]) for c, p, _ in parsed] == [
        ("warning", "sub/.docs-mcp.json", "4", "docs-mcp unknown-manifest-key"),
        ("warning", None, None, "docs-mcp default-strategy"),
    ]
    # --verbose: the summary's message ends with every file it stands for, one per line.
    assert parsed[1][2].splitlines()[1:] == ["b.md", "c.md"]


def test_a_file_name_with_commas_colons_and_percents_is_escaped_in_the_file_property(tmp_path: Path) -> None:
    finding = Finding("we,ird: 100%\nname.md", 7, "error", "bad: 50%, really\nyes", "some-rule")
    line = github_command(finding, OutputOptions(docs_dir=tmp_path / "docs", root=tmp_path))
    assert "\n" not in line
    command, properties, message = parse_command(line)
    assert (command, properties["file"], properties["line"]) == ("error", "docs/we,ird: 100%\nname.md", "7")
    assert message == "bad: 50%, really\nyes"


def test_a_whole_file_finding_has_no_line_and_a_file_outside_the_root_keeps_its_absolute_path(
    tmp_path: Path,
) -> None:
    finding = Finding("a.md", 0, "warning", "whole file", "r")
    _, properties, _ = parse_command(github_command(finding, OutputOptions(docs_dir=tmp_path, root=tmp_path)))
    assert properties == {"file": "a.md", "title": "docs-mcp r"}
    outside = annotation_path(tmp_path / "elsewhere", "a.md", tmp_path / "root")
    assert outside == (tmp_path / "elsewhere" / "a.md").as_posix()


def test_a_clean_folder_prints_no_command(examples_docs: Path) -> None:
    report = validate(examples_docs)
    assert github(report, OutputOptions(docs_dir=examples_docs, root=examples_docs.parent)) == ""


def test_per_file_findings_come_before_summaries_whatever_the_report_order(tmp_path: Path) -> None:
    summary = SummaryFinding("", 0, "warning", "many files", "default-strategy", paths=("x.md",))
    report = ValidationReport(
        findings=[summary, Finding("a.md", 2, "error", "m", "r")], file_count=1, chunk_count=1, seconds=0.0
    )
    lines = github(report, OutputOptions(docs_dir=tmp_path, root=tmp_path)).splitlines()
    assert [parse_command(line)[0] for line in lines] == ["error", "warning"]
