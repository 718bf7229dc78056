"""The fix workspace: proposed files in memory, line edits that keep line ends, manifest layout."""

from __future__ import annotations

import json
from pathlib import Path

from docs_mcp.fix.edits import fix_unknown_key, front_matter_value, remove_comment, section_hint
from docs_mcp.fix.workspace import Workspace, render_json


def test_line_edits_keep_crlf_line_ends_and_a_missing_final_newline(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_bytes(b"# T\r\n\r\n## A\r\n\r\ntext")
    workspace = Workspace(tmp_path)
    lines = workspace.lines("a.md")
    workspace.edit_lines("a.md", [section_hint(lines, 3, "h3")], ["why"])
    [change] = workspace.changes()
    assert change.after == '# T\r\n\r\n<!-- mcp_section_hint: {"chunk_by": "h3"} -->\r\n\r\n## A\r\n\r\ntext'
    assert change.before == "# T\r\n\r\n## A\r\n\r\ntext" and change.reasons == ("why",)
    assert (tmp_path / "a.md").read_bytes() == b"# T\r\n\r\n## A\r\n\r\ntext"


def test_a_hint_before_a_heading_right_after_text_gets_a_blank_line_first() -> None:
    assert section_hint(["Text", "## A"], 2, "h4") == (
        2,
        1,
        ["", '<!-- mcp_section_hint: {"chunk_by": "h4"} -->', ""],
    )


def test_a_comment_is_removed_only_when_it_is_alone_on_its_line() -> None:
    assert remove_comment(["a", "", "<!-- mcp_x: {} -->", "", "b"], 3) == (3, 4, [])  # no double blank
    assert remove_comment(["a", "<!-- mcp_x: {} -->", "", "b"], 2) == (2, 2, [])
    assert remove_comment(["", "<!-- mcp_x: {} -->", "", "b"], 2) == (2, 3, [])
    assert remove_comment(["text <!-- mcp_x: {} -->"], 1) is None


def test_a_front_matter_value_is_replaced_in_place_quoted_only_when_yaml_needs_it() -> None:
    assert front_matter_value(["---", "language: golang  # old", "---"], 2, "go") == (
        2,
        2,
        ["language: go  # old"],
    )
    assert front_matter_value(["---", "  language: x", "---"], 2, "yes") == (2, 2, ['  language: "yes"'])
    assert front_matter_value(["---", "language:", "---"], 2, "go") is None


def test_an_unknown_key_is_renamed_in_place_when_its_value_fits_the_known_key() -> None:
    data = {"version": "1", "instructions": "Use search.", "strategy": {"chunk_by": "h2"}}
    reason = fix_unknown_key(data, (), "instructions", ["version", "strategy", "mcpServerInstructions"])
    assert list(data) == ["version", "mcpServerInstructions", "strategy"]
    assert reason.startswith("rename 'instructions' to 'mcpServerInstructions'")


def test_an_unknown_key_whose_value_would_break_the_known_key_is_removed() -> None:
    data = {"version": "1", "strategy": {"chunk_by": "h2", "chunk": 5}}
    reason = fix_unknown_key(data, ("strategy",), "chunk", ["chunk_by", "max_chunk_size"])
    assert data == {"version": "1", "strategy": {"chunk_by": "h2"}}
    assert reason == "remove the unknown key 'chunk': docs-mcp ignores it"


def test_manifests_render_short_objects_on_one_line() -> None:
    data = {"version": "1", "overrides": [{"pattern": "a.md", "strategy": {"chunk_by": "file"}}]}
    text = render_json(data)
    assert json.loads(text) == data
    assert (
        text
        == '{\n  "version": "1",\n  "overrides": [{"pattern": "a.md", "strategy": {"chunk_by": "file"}}]\n}\n'
    )


def test_a_manifest_keeps_the_layout_it_was_written_in(tmp_path: Path) -> None:
    original = {"version": "1", "metadata": {"language": "golang"}}
    (tmp_path / ".docs-mcp.json").write_text(json.dumps(original, indent=4))
    workspace = Workspace(tmp_path)
    workspace.write_manifest(".docs-mcp.json", {"version": "1", "metadata": {"language": "go"}}, "why")
    [change] = workspace.changes()
    assert change.after == json.dumps({"version": "1", "metadata": {"language": "go"}}, indent=4)
