"""``docs-mcp chunk``: the chunk preview, as text and JSON lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.cli.main import main

pytestmark = pytest.mark.timeout(60)


def test_the_preview_lists_id_heading_path_and_size(
    examples_docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chunk", "--docs-dir", str(examples_docs), "--file", "guides/retries.md"]) == 0
    out, err = capsys.readouterr()
    rows = [line.split("\t") for line in out.splitlines()]
    assert [r[0] for r in rows] == [
        "guides/retries.md#retries",
        "guides/retries.md#retries/what-is-retried",
        "guides/retries.md#retries/backoff-strategy",
        "guides/retries.md#retries/idempotency-keys",
        "guides/retries.md#retries/turning-retries-off",
    ]
    assert rows[2][1] == "Retries > Backoff strategy"
    assert all(r[2].endswith(" chars") and int(r[2].split()[0]) > 0 for r in rows)
    assert err == ""


def test_json_lines_carry_one_object_per_chunk(
    examples_docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chunk", "--docs-dir", str(examples_docs), "--json"]) == 0
    out, _ = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()]
    assert len({r["id"] for r in rows}) == len(rows) > 20
    payout = next(r for r in rows if r["id"].endswith("python-sdk/createpayout"))
    assert payout["heading_path"] == ["Acme Payments Python SDK", "create_payout"]
    assert payout["metadata"] == {"language": "python", "scope": "sdk-specific", "stability": "beta"}
    assert payout["chars"] > 0 and payout["start_line"] <= payout["end_line"]


def test_a_file_path_including_the_docs_dir_is_accepted(
    examples_docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = examples_docs / "sdks" / "go" / "models" / "payment.md"
    assert main(["chunk", "--docs-dir", str(examples_docs), "--file", str(target)]) == 0
    out, _ = capsys.readouterr()
    assert out.split("\t")[0] == "sdks/go/models/payment.md"


def test_an_unknown_file_is_an_error_with_exit_one(
    examples_docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chunk", "--docs-dir", str(examples_docs), "--file", "guides/nope.md"]) == 1
    _, err = capsys.readouterr()
    assert "'guides/nope.md' is not an indexed markdown file" in err


def test_a_missing_docs_dir_is_an_error_with_exit_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["chunk", "--docs-dir", str(tmp_path / "none")]) == 1
    _, err = capsys.readouterr()
    assert "does not exist" in err


def test_files_with_errors_are_still_previewed_with_a_hint_to_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.md").write_text('# A\n\n<!-- mcp_metadata: {"team": "core"} -->\n\nText.\n')
    assert main(["chunk", "--docs-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("a.md#a\t")
    assert "run `docs-mcp validate`" in err
