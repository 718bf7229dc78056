"""What --help and a usage error show a person: plain text, whole sentences, the command's own
usage; and paths printed as people read them."""

from __future__ import annotations

from pathlib import Path

import pytest

from docs_mcp.cli.main import COMMANDS, main
from testkit.index_fixtures import write_docs


def test_the_command_list_is_plain_text_in_whole_sentences(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = " ".join(capsys.readouterr().out.split())
    assert "``" not in listing
    assert "or repair their drift; --write applies" in listing
    assert "categories, baseline deltas)" in listing  # eval's summary, not its first line only
    assert all(f" {command} " in listing for command in COMMANDS)


@pytest.mark.parametrize("command", ["build", "serve", "search", "eval"])
def test_an_unknown_flag_shows_the_command_usage(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command, "--no-such-flag"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: docs-mcp {command} ")
    assert f"docs-mcp {command}: error:" in err


def test_an_unknown_flag_without_a_command_shows_the_top_level_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["--no-such-flag"])
    assert capsys.readouterr().err.startswith("usage: docs-mcp [-h]")


def test_build_prints_its_output_path_normalised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_docs(tmp_path / "corpora" / "docs")
    monkeypatch.chdir(tmp_path / "corpora")
    assert main(["build", "--docs-dir", "docs", "--out", "../corpora/../idx", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith(f"built {tmp_path / 'idx'}: ")
