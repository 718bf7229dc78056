"""The Docker side of the container tests: the engine, the images, containers run as users run them.

Containers are started through testcontainers; every published port binds 127.0.0.1 only. Waiting is
on events (a log line, a health event, the container's exit), each bounded by a deadline.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import docker
from docker.errors import DockerException
from mcp import StdioServerParameters
from testcontainers.core.container import DockerContainer
from testcontainers.core.network import Network

REPO_ROOT = Path(__file__).resolve().parents[2]
IMAGES_SCRIPT = REPO_ROOT / "scripts" / "images"
# Set by .ci/run: there a missing engine fails the container tests instead of skipping them.
REQUIRE_ENV = "DOCS_MCP_REQUIRE_DOCKER"
TAG = os.environ.get("DOCS_MCP_IMAGE_TAG", "dev")
BUILD_IMAGE = f"docs-mcp-build:{TAG}"
SERVE_IMAGE = f"docs-mcp-serve:{TAG}"
SERVE_LOCAL_IMAGE = f"docs-mcp-serve:{TAG}-local"
SERVE_PORT = 8000
SERVE_UID = 10001
_LISTENING = re.compile(r"serving index (\S+) .* at http://")
_BUILD_TIMEOUT_S = 1500


def _ping_socket(path: str) -> None:
    """``GET /_ping`` on the engine's unix socket, by hand: docker-py and httpx both leave the socket
    of a failed connection unclosed (a ResourceWarning, an error under -W error). Raises OSError."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: engine\r\n\r\n")
        status_line = sock.recv(128).split(b"\r\n", 1)[0]
    if b" 200 " not in status_line + b" ":
        raise OSError(f"the engine answered {status_line.decode(errors='replace')!r}")


def engine_problem() -> str | None:
    """Why no Docker engine can be used here, or None when one answers at DOCKER_HOST."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    try:
        if host.startswith("unix://"):
            _ping_socket(host.removeprefix("unix://"))
        else:
            engine = docker.from_env(timeout=10)
            try:
                engine.ping()
            finally:
                engine.close()
    except (OSError, DockerException) as error:
        return f"no Docker engine at {host}: {error}"
    return None


def build_images(*targets: str) -> list[str]:
    """Run ``scripts/images TARGET`` (what ``./dev images`` runs) for each target; the image names built.

    Raises ``AssertionError`` with the build's output when a build fails.
    """
    built: list[str] = []
    for target in targets:
        result = subprocess.run(
            [str(IMAGES_SCRIPT), *target.split()],
            capture_output=True,
            text=True,
            timeout=_BUILD_TIMEOUT_S,
            check=False,
        )
        assert result.returncode == 0, f"scripts/images {target} failed:\n{result.stderr[-6000:]}"
        built += result.stdout.split()
    return built


@dataclass
class Ran:
    """A finished one-off container: its exit code and output (stdout then stderr)."""

    exit_code: int
    output: str


def host_user() -> str:
    """``uid:gid`` of this process, so files a container writes into a mounted folder stay ours."""
    return f"{os.getuid()}:{os.getgid()}"


def run_to_exit(
    image: str,
    command: Sequence[str],
    *,
    volumes: Sequence[tuple[Path, str, str]] = (),
    env: Mapping[str, str] | None = None,
    timeout: float = 300,
    **kwargs: Any,
) -> Ran:
    """Run ``image`` with ``command`` until it exits (bounded by ``timeout``); remove it after.
    ``kwargs`` go to the engine's container create (``user=``, ``entrypoint=``, ...)."""
    container = DockerContainer(image).with_command(list(command)).with_envs(**(env or {}))
    if kwargs:
        container.with_kwargs(**kwargs)
    for host, inside, mode in volumes:
        container.with_volume_mapping(str(host), inside, mode)
    container.start()
    try:
        wrapped = container.get_wrapped_container()
        status = wrapped.wait(timeout=timeout)
        stdout, stderr = container.get_logs()
        return Ran(int(status["StatusCode"]), (stdout + stderr).decode(errors="replace"))
    finally:
        container.stop()


def await_log_line(container: DockerContainer, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
    """The first line the container logs that matches ``pattern``, read from its log stream as it
    arrives. Raises ``AssertionError`` with the log so far when it exits or ``timeout`` passes first."""
    wrapped = container.get_wrapped_container()
    found: list[re.Match[str]] = []
    seen: list[str] = []
    done = threading.Event()

    def follow() -> None:
        try:
            for raw in wrapped.logs(stream=True, follow=True, stdout=True, stderr=True):
                for line in raw.decode(errors="replace").splitlines():
                    seen.append(line)
                    match = pattern.search(line)
                    if match and not found:
                        found.append(match)
                        done.set()
        except DockerException:
            pass
        finally:
            done.set()

    threading.Thread(target=follow, daemon=True).start()
    done.wait(timeout)
    assert found, f"no log line matching {pattern.pattern!r} within {timeout} s:\n" + "\n".join(seen)
    return found[0]


def await_health(container: DockerContainer, status: str, timeout: float) -> float:
    """Wait for the engine's ``health_status: STATUS`` event of the container; seconds waited."""
    client = container.get_docker_client().client
    started = time.monotonic()
    wrapped = container.get_wrapped_container()
    wrapped.reload()
    if wrapped.attrs["State"].get("Health", {}).get("Status") == status:
        return 0.0
    events = client.events(
        decode=True,
        since=int(time.time()) - 60,
        filters={"container": wrapped.id, "event": f"health_status: {status}"},
    )
    seen = threading.Event()

    def watch() -> None:
        for _event in events:
            seen.set()
            return

    threading.Thread(target=watch, daemon=True).start()
    try:
        assert seen.wait(timeout), f"container not {status} within {timeout} s"
    finally:
        events.close()
    return time.monotonic() - started


@dataclass
class Served:
    """A running serve container and where its MCP endpoint answers on this host."""

    container: DockerContainer
    url: str  # http://127.0.0.1:PORT/mcp
    index_identity: str

    @property
    def base(self) -> str:
        return self.url.removesuffix("/mcp")


def serve_container(
    image: str,
    *,
    index: Path | None = None,
    env: Mapping[str, str] | None = None,
    network: Network | None = None,
    aliases: Sequence[str] = (),
    **kwargs: Any,
) -> DockerContainer:
    """A serve container (not started) with ``index`` mounted read-only at /index, its HTTP port
    published on 127.0.0.1 (a free port), and ``env`` added to the image's own environment."""
    container = DockerContainer(image)
    # Loopback only, whatever the engine's default bind address (docker-py's (ip, port) form).
    container.ports[f"{SERVE_PORT}/tcp"] = ("127.0.0.1", None)  # type: ignore[assignment]
    if index is not None:
        container.with_volume_mapping(str(index), "/index", "ro").with_env("DOCS_MCP_INDEX", "/index")
    for key, value in (env or {}).items():
        container.with_env(key, value)
    if network is not None:
        container.with_network(network).with_network_aliases(*aliases)
    if kwargs:
        container.with_kwargs(**kwargs)
    return container


@contextmanager
def serving(container: DockerContainer, *, timeout: float = 60) -> Iterator[Served]:
    """Start ``container``, wait for the server's "serving ... at" line, yield where it answers; stop it."""
    container.start()
    try:
        match = await_log_line(container, _LISTENING, timeout)
        port = int(container.get_docker_client().port(container.get_container_id(), SERVE_PORT))
        yield Served(container, f"http://127.0.0.1:{port}/mcp", match.group(1))
    finally:
        container.stop()


def docker_cli() -> str:
    """The docker command, for what only it does (``docker run -i`` attached to our pipes)."""
    found = shutil.which("docker")
    assert found, "the docker CLI is not on PATH"
    return found


def docker_run_stdio(
    image: str, *args: str, volumes: Sequence[tuple[Path, str]] = ()
) -> StdioServerParameters:
    """An MCP stdio server that is ``docker run -i --rm [args] image``, each (host folder, path)
    mounted read-only, with this environment (DOCKER_HOST included: the SDK passes a bare one)."""
    mounts = [arg for host, inside in volumes for arg in ("-v", f"{host}:{inside}:ro")]
    return StdioServerParameters(
        command=docker_cli(), args=["run", "-i", "--rm", *mounts, *args, image], env=dict(os.environ)
    )
