"""The publish path for real: build the sdist and wheel, upload them with twine to a package index
(pypiserver) on 127.0.0.1, install ``docs-mcp-index[build,local]`` from it into a fresh venv, then
build and search the examples with the installed command, and run it with ``uvx --from`` (the
run-without-install line of docs/clients.md).

Dependencies come from the normal index (an extra index after the local one, which is asked first:
uv's first-index strategy, so the local index's docs-mcp-index is the one installed), pinned by the
build lock. uv installs (its cache makes a fresh venv take seconds; pip, measured in the README,
installs the same set). Install time and size per extra go to test-artifacts/install-sizes.json.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from docs_mcp import DISTRIBUTION, __version__

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "test-artifacts"
UV = Path(sys.executable).parent / "uv"
DEFAULT_INDEX = os.environ.get("UV_DEFAULT_INDEX", "https://pypi.org/simple")
# The install built and searched with; DOCS_MCP_MEASURE_INSTALLS=1 measures each extra before it
# (a fresh venv each: ~10 s more per extra).
TESTED = "build,local"
EXTRAS = (
    ("", "build", "build,openai", "artifact", TESTED)
    if os.environ.get("DOCS_MCP_MEASURE_INSTALLS")
    else (TESTED,)
)

pytestmark = [pytest.mark.package_index, pytest.mark.timeout(240)]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [str(UV), "build", "--quiet", "--out-dir", str(out), str(REPO_ROOT)], check=True, timeout=120
    )
    return out


@pytest.fixture(scope="module")
def package_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """pypiserver on 127.0.0.1, uploads without authentication, no fallback to another index."""
    packages = tmp_path_factory.mktemp("packages")
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(port), "-a", ".", "-P", ".",
         "--disable-fallback", "--log-stream", "none", str(packages)],
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None and time.monotonic() < deadline, "pypiserver did not start"
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def _install(index: str, extras: str, venv: Path) -> tuple[float, int]:
    """A fresh venv with ``DISTRIBUTION[extras]`` from ``index``: (seconds, bytes of site-packages)."""
    subprocess.run(
        [str(UV), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True, timeout=60
    )
    requirement = f"{DISTRIBUTION}[{extras}]=={__version__}" if extras else f"{DISTRIBUTION}=={__version__}"
    started = time.perf_counter()
    subprocess.run(
        [str(UV), "pip", "install", "--quiet", "--python", str(venv / "bin" / "python"),
         "--extra-index-url", f"{index}/simple/", "--index-url", DEFAULT_INDEX,
         "--constraint", str(REPO_ROOT / "requirements" / "build.lock"),
         # the lock's versions hold only with its overrides (pylance's bound on lance-namespace)
         "--overrides", str(REPO_ROOT / "requirements" / "overrides.txt"), requirement],
        check=True,
        timeout=180,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    site = next((venv / "lib").glob("python3*/site-packages"))
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file() and not f.is_symlink())
    return seconds, size


def test_upload_then_install_build_and_search_from_the_index(
    dist: Path, package_index: str, tmp_path: Path
) -> None:
    uploads = sorted(p for p in dist.iterdir() if p.name.endswith((".whl", ".tar.gz")))
    files = [p.name for p in uploads]
    assert files == [f"docs_mcp_index-{__version__}-py3-none-any.whl", f"docs_mcp_index-{__version__}.tar.gz"]
    subprocess.run(
        [sys.executable, "-m", "twine", "upload", "--non-interactive", "--disable-progress-bar",
         "--repository-url", f"{package_index}/", "-u", "ci", "-p", "ci", *map(str, uploads)],
        check=True,
        timeout=60,
    )  # fmt: skip
    listing = httpx.get(f"{package_index}/simple/{DISTRIBUTION}/", timeout=10).text
    assert all(name in listing for name in files)

    measured = {}
    for extras in EXTRAS:
        venv = tmp_path / f"venv-{extras.replace(',', '-') or 'base'}"
        seconds, size = _install(package_index, extras, venv)
        measured[f"[{extras}]" if extras else "base"] = {
            "seconds": round(seconds, 2),
            "mib": round(size / 2**20, 1),
        }
        if extras != TESTED:
            shutil.rmtree(venv)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "install-sizes.json").write_text(json.dumps(measured, indent=2) + "\n", encoding="utf-8")

    # The installed command, from a folder outside the checkout: nothing imports the source tree.
    command = str(venv / "bin" / "docs-mcp")
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    out = tmp_path / "index"
    run = {"cwd": tmp_path, "env": environment, "capture_output": True, "text": True, "timeout": 120}
    built = subprocess.run(
        [command, "build", "--docs-dir", str(REPO_ROOT / "examples" / "docs"), "--out", str(out),
         "--embedding-provider", "local", "--json", "--quiet"],
        **run,  # type: ignore[call-overload]
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["embedding"]["provider"] == "local"
    found = subprocess.run([command, "search", "--index", str(out), "retry with backoff", "--json"], **run)  # type: ignore[call-overload]
    assert found.returncode == 0, found.stderr
    page = json.loads(found.stdout)
    assert page["mode"] == "hybrid" and page["hits"]
    # Served over stdio as an MCP client spawns it.
    assert _stdio_search(command, out, environment)["mode"] == "hybrid"
    origin = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import docs_mcp, importlib.resources as r; print(docs_mcp.__file__);"
         "print((r.files('docs_mcp.server.transport') / 'page_assets' / 'page.js').is_file())"],
        **run,  # type: ignore[call-overload]
    )  # fmt: skip
    module_file, has_page = origin.stdout.split()
    assert module_file.startswith(str(venv)) and has_page == "True"

    # docs/clients.md's run-without-install line, from the same index.
    uvx = subprocess.run(
        [str(UV), "tool", "run",
         "--extra-index-url", f"{package_index}/simple/", "--index-url", DEFAULT_INDEX,
         "--constraint", str(REPO_ROOT / "requirements" / "build.lock"),
         "--from", f"{DISTRIBUTION}=={__version__}", "docs-mcp", "--version"],
        **run | {"env": environment | {"UV_TOOL_DIR": str(tmp_path / "tools")}},  # type: ignore[call-overload]
    )  # fmt: skip
    assert uvx.returncode == 0 and uvx.stdout.strip() == f"docs-mcp {__version__}", uvx.stderr


def _stdio_search(command: str, index: Path, environment: dict[str, str]) -> dict[str, Any]:
    """``search_docs`` asked of ``command serve --index INDEX`` over stdio: its structured result."""
    session = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search_docs", "arguments": {"query": "retry with backoff"}}},
    ]  # fmt: skip
    process = subprocess.Popen(
        [command, "serve", "--index", str(index)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    assert process.stdin is not None and process.stdout is not None
    with process:
        process.stdin.write("".join(json.dumps(message) + "\n" for message in session))
        process.stdin.flush()
        replies = (json.loads(line) for line in process.stdout)
        answer = next(reply for reply in replies if reply.get("id") == 2)
        process.stdin.close()  # how a client ends the session: the server exits 0
        assert process.wait(30) == 0, process.stderr.read() if process.stderr else ""
    result: dict[str, Any] = answer["result"]
    assert not result.get("isError"), result
    return dict(result["structuredContent"])
