"""``docs-mcp serve``: its readiness line (the process serves stdio until its input ends), and its
configuration by the environment (what the serve image does): flags win, bad values are usage errors
naming the variable, and the real server starts from the environment alone."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from docs_mcp.cli.main import build_parser, main
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server.hub.specs import RefreshIntervals
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVE_ENV = (
    "INDEX",
    "TRANSPORT",
    "HOST",
    "PORT",
    "ALLOW_HOSTS",
    "ALLOW_ORIGINS",
    "REFRESH_INTERVAL",
    "CACHE_DIR",
    "CURSOR_SECRET",
)


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve-cli")
    build(BuildOptions(docs_dir=write_docs(root / "docs"), out=root / "out"))
    return root / "out"


def _serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", "serve", *args],
        input="",  # input ends at once: the server announces itself and exits
        capture_output=True,
        text=True,
        timeout=100,
        cwd=REPO_ROOT,
    )


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SERVE_ENV:
        monkeypatch.delenv(f"DOCS_MCP_{name}", raising=False)


def test_serve_announces_itself_in_one_line_on_stderr(index: Path) -> None:
    done = _serve("--index", str(index))
    assert done.returncode == 0
    assert done.stdout == ""
    assert done.stderr.startswith("docs-mcp: serving index ")
    assert done.stderr.rstrip().endswith("on stdio")


def _parse(*argv: str) -> dict[str, object]:
    return vars(build_parser(only="serve").parse_args(["serve", *argv]))


def test_the_environment_sets_every_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCS_MCP_INDEX", "/srv/index")
    monkeypatch.setenv("DOCS_MCP_TRANSPORT", "http")
    monkeypatch.setenv("DOCS_MCP_HOST", "0.0.0.0")
    monkeypatch.setenv("DOCS_MCP_PORT", "9100")
    monkeypatch.setenv("DOCS_MCP_ALLOW_HOSTS", "docs.example.com:*, docs-mcp:8000")
    monkeypatch.setenv("DOCS_MCP_ALLOW_ORIGINS", "https://app.example.com")
    monkeypatch.setenv("DOCS_MCP_REFRESH_INTERVAL", "30")
    monkeypatch.setenv("DOCS_MCP_CACHE_DIR", "/var/cache/docs-mcp")
    args = _parse()
    assert (args["index"], args["transport"], args["host"], args["port"]) == (
        "/srv/index",
        "http",
        "0.0.0.0",
        9100,
    )
    assert args["env_allow_host"] == ["docs.example.com:*", "docs-mcp:8000"]
    assert args["env_allow_origin"] == ["https://app.example.com"]
    assert (args["refresh_interval"], args["cache_dir"]) == (
        RefreshIntervals(30.0),
        Path("/var/cache/docs-mcp"),
    )


def test_flags_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCS_MCP_INDEX", "/srv/index")
    monkeypatch.setenv("DOCS_MCP_TRANSPORT", "http")
    monkeypatch.setenv("DOCS_MCP_PORT", "9100")
    args = _parse("--index", "other", "--transport", "stdio", "--port", "0")
    assert (args["index"], args["transport"], args["port"]) == ("other", "stdio", 0)


def test_without_environment_the_defaults_are_stdio_on_loopback() -> None:
    args = _parse("--index", "idx")
    assert (args["transport"], args["host"], args["port"], args["allow_host"]) == (
        "stdio",
        "127.0.0.1",
        8000,
        None,
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("DOCS_MCP_TRANSPORT", "htp"),
        ("DOCS_MCP_PORT", "80a"),
        ("DOCS_MCP_PORT", "70000"),
        ("DOCS_MCP_REFRESH_INTERVAL", "soon"),
    ],
)
def test_a_bad_environment_value_is_a_usage_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], variable: str, value: str
) -> None:
    monkeypatch.setenv("DOCS_MCP_INDEX", "idx")
    monkeypatch.setenv(variable, value)
    with pytest.raises(SystemExit) as exited:
        main(["serve"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert variable in err and repr(value) in err


def test_without_an_index_flag_or_variable_serve_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["serve"])
    assert exited.value.code == 2
    assert "--index" in capsys.readouterr().err


def test_help_lists_the_environment_variables(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    out = capsys.readouterr().out
    for name in SERVE_ENV:
        assert f"DOCS_MCP_{name}" in out


def test_the_server_starts_from_the_environment_alone(index: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT / "src"),
        "DOCS_MCP_INDEX": str(index),
        "DOCS_MCP_TRANSPORT": "http",
        "DOCS_MCP_PORT": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "docs_mcp", "serve"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stderr is not None
    lines: list[str] = []
    announced = threading.Event()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append(line)
            if re.search(r"ready in .* at http://", line):  # the index is open (server.startup.launch)
                announced.set()
        announced.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert announced.wait(60), "".join(lines)
        url = re.search(r"at (http://\S+)/mcp", "".join(lines))
        assert url, "".join(lines)
        assert url.group(1).startswith("http://127.0.0.1:")
        assert httpx.get(f"{url.group(1)}/healthz").json()["status"] == "ok"
    finally:
        process.terminate()
        assert process.wait(15) == 0
        reader.join(10)
        process.stderr.close()


@pytest.fixture(scope="module")
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


SERVE_MISTAKES: dict[str, tuple[list[str], int, str]] = {
    "port-in-use": (["--transport", "http", "--port", "BUSY"], 1, "is in use; stop what listens there"),
    "bad-host": (["--transport", "http", "--host", "no.such.host.invalid", "--port", "0"], 2, "--host"),
    "cache-dir-is-a-file": (["--index", "oci://127.0.0.1:1/x:y", "--cache-dir", "FILE"], 2, "is a file"),
    "refresh-inf": (["--index", "oci://127.0.0.1:1/x:y", "--refresh-interval", "inf"], 2, "'inf' is not"),
    "refresh-nan": (["--index", "oci://127.0.0.1:1/x:y", "--refresh-interval", "nan"], 2, "'nan' is not"),
    "refresh-too-small": (["--index", "oci://127.0.0.1:1/x:y", "--refresh-interval", "0.001"], 2, "from 0.1"),
    "url-with-password": (["--index", "https://bob:hunter2@127.0.0.1:1/x:y"], 2, "is a URL"),
    "reference-with-password": (["--index", "oci://bob:hunter2@127.0.0.1:1/x:y"], 1, "holds no credentials"),
    "bare-reference-with-password": (["--index", "bob:hunter2@127.0.0.1:1/x:y"], 1, "***@127.0.0.1"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(SERVE_MISTAKES))
def test_each_serve_mistake_is_one_line_with_its_exit_code_and_no_password(
    index: Path, busy_port: int, tmp_path: Path, name: str
) -> None:
    """Issue 19: these were tracebacks (port in use, bad host, a cache dir that is a file, inf), an
    accepted nan that polled ~300 times a second, and printed passwords (5 of 8 reference shapes)."""
    args, code, says = SERVE_MISTAKES[name]
    (tmp_path / "file").write_text("not a folder")
    replaced = [str(busy_port) if a == "BUSY" else str(tmp_path / "file") if a == "FILE" else a for a in args]
    done = _serve(*(["--index", str(index)] if "--index" not in args else []), *replaced)
    assert done.returncode == code, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert says in last and "Traceback" not in done.stderr and "hunter2" not in done.stderr, done.stderr
    assert code == 2 or done.stderr.count("\n") == 1, done.stderr  # usage errors also print the usage
