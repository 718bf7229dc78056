"""What a server of several indexes refuses at start, in one line: a ``--refresh-interval`` that names no
served tag (or is no number), and an index whose facet the hub's ``library``/``version`` arguments would
shadow. The real CLI and real indexes; the registry-backed intervals are in test_libraries_served.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from server_support import CURSOR_KEY, server_env

from docs_mcp.errors import ConfigError
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server.hub.opening import open_hub
from docs_mcp.server.hub.specs import RefreshIntervals, parse_index_specs, parse_refresh_intervals
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)
SERVE = [sys.executable, "-m", "docs_mcp", "serve"]
TAG = "oci://127.0.0.1:1/hub/pay:v1"  # nothing listens: every case below must fail before a pull
DIGEST = "oci://127.0.0.1:1/hub/pay@sha256:" + "0" * 64


def _serve(*arguments: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SERVE, *arguments], input="", capture_output=True, text=True, timeout=100, env=server_env(**env)
    )


def test_intervals_read_every_tag_and_each_library() -> None:
    parsed = parse_refresh_intervals(["300,sdk=30", "docs@2.0=5"])
    assert parsed == RefreshIntervals(300.0, {"sdk": 30.0, "docs@2.0": 5.0})
    v2, v1 = parse_index_specs([f"docs@2.0={TAG}", f"docs@1.0={TAG}"])
    assert (parsed.for_spec(v2), parsed.for_spec(v1)) == (5.0, 300.0)  # NAME@VERSION, else every tag's
    assert parse_refresh_intervals(["sdk=30"]).for_spec(v1) is None  # not named: not followed


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("sdk=soon", "'sdk=soon' is not a number of seconds from 0.1 to 604,800 (a week)"),
        ("sdk=0.01", "from 0.1 to"),
        ("sdk=nan", "'sdk=nan' is not"),
        ("1e300", "'1e300' is not a number of seconds from 0.1"),  # was an OverflowError traceback
        ("sdk=604801", "'sdk=604801' is not"),
        ("Big Name=5", "'Big Name' is not a library name"),
        ("sdk=5,sdk=6", "sdk is given twice"),
        ("5,6", "the interval of every tag is given twice"),
    ],
)
def test_a_malformed_interval_is_a_usage_error_naming_it(
    value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from docs_mcp.cli.main import main

    with pytest.raises(SystemExit) as exited:
        main(["serve", "--index", f"sdk={TAG}", "--refresh-interval", value])
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert says in err and "--refresh-interval" in err, err


def test_a_library_given_twice_in_two_flags_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from docs_mcp.cli.main import build_parser

    parser = build_parser(only="serve")
    with pytest.raises(SystemExit):
        parser.parse_args(
            ["serve", "--index", "x", "--refresh-interval", "sdk=5", "--refresh-interval", "sdk=6"]
        )
    assert "sdk is given twice" in capsys.readouterr().err
    args = parser.parse_args(
        ["serve", "--index", "x", "--refresh-interval", "60", "--refresh-interval", "sdk=5"]
    )
    assert args.refresh_interval == RefreshIntervals(60.0, {"sdk": 5.0})


@pytest.fixture(scope="module")
def plain_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hub-edges")
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=root / "out"))
    return root / "out"


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (
            ["--refresh-interval", "docs=5"],
            "--refresh-interval docs=...: no --index is named 'docs' (served: ",
        ),
        (["--refresh-interval", "local=5"], "local is the folder"),
        (["--refresh-interval", "pay@3.0=5"], "no --index is named 'pay@3.0'"),
    ],
)
def test_an_interval_for_no_served_tag_is_one_line_before_any_pull(
    plain_index: Path, arguments: list[str], says: str
) -> None:
    done = _serve("--index", f"pay={TAG}", "--index", f"local={plain_index}", *arguments)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and says in done.stderr, done.stderr


def test_an_interval_for_a_digest_or_a_single_index_is_one_line(plain_index: Path) -> None:
    done = _serve(
        "--index", f"pay={DIGEST}", "--index", f"local={plain_index}", "--refresh-interval", "pay=5"
    )
    assert done.returncode == 1 and "--index pay: --refresh-interval follows a tag; this one is a digest" in (
        done.stderr
    ), done.stderr
    done = _serve("--index", TAG, DOCS_MCP_REFRESH_INTERVAL="pay=5")
    assert done.returncode == 1 and "serves one unnamed index: give --refresh-interval SECONDS" in (
        done.stderr
    ), done.stderr


@pytest.mark.parametrize("facet", ["library", "version"])
def test_a_facet_the_hub_would_shadow_stops_the_start_naming_index_and_facet(
    tmp_path: Path, plain_index: Path, facet: str
) -> None:
    manifest = {"version": "1", "metadata": {facet: "payments"}}
    docs = write_docs(
        tmp_path / "docs", {".docs-mcp.json": json.dumps(manifest), "a.md": "# A\n\nAlpha text.\n"}
    )
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    specs = parse_index_specs([f"plain={plain_index}", f"shadowed={tmp_path / 'out'}"])
    with pytest.raises(ConfigError) as raised:
        open_hub(specs, key=CURSOR_KEY)
    assert str(raised.value).startswith(f"--index shadowed: the index has a facet named {facet!r}")
    done = _serve("--index", f"plain={plain_index}", "--index", f"shadowed={tmp_path / 'out'}")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert f"--index shadowed: the index has a facet named {facet!r}" in done.stderr


def test_a_rebuild_that_adds_a_shadowed_facet_is_refused_and_the_old_index_serves(
    tmp_path: Path, plain_index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    docs = write_docs(tmp_path / "docs", {"a.md": "# A\n\nAlpha text.\n"})
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    ready = open_hub(
        parse_index_specs([f"plain={plain_index}", f"rebuilt={tmp_path / 'out'}"]), key=CURSOR_KEY
    )
    try:
        rebuilt = next(library for library in ready.hub.libraries if library.name == "rebuilt")
        before = rebuilt.live.current
        (docs / ".docs-mcp.json").write_text(json.dumps({"version": "1", "metadata": {"library": "x"}}))
        build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
        with caplog.at_level("WARNING"):
            assert rebuilt.live.acquire() is before
        assert "--index rebuilt: the index has a facet named 'library'" in caplog.text
    finally:
        ready.stop()
