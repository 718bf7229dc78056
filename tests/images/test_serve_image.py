"""docs-mcp-serve as users run it: a folder index mounted read-only, MCP over HTTP from this host and
over ``docker run -i``; non-root, read-only root filesystem, SIGTERM, healthcheck, nothing of the build
and no shell."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from image_support import (
    SERVE_UID,
    await_health,
    build_images,
    docker_run_stdio,
    run_to_exit,
    serve_container,
    serving,
)
from mcp import Client
from registry_support import Registry

from docs_mcp.artifact import publish

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]

# What only building needs (the build/openai extras, and pip): none of it may be importable when
# serving. (oras is: serve --index oci:// pulls with it.)
BUILD_ONLY_MODULES = ("markdown_it", "mdit_py_plugins", "yaml", "openai", "tenacity", "pip")
# Every process in the container with its uids, from /proc.
PROCESS_USERS = """
import json, pathlib
found = []
for status in pathlib.Path("/proc").glob("[0-9]*/status"):
    fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
    found.append([fields["Name"].strip(), fields["Uid"].split()])
print(json.dumps(found))
"""


@pytest.mark.anyio
async def test_a_real_client_searches_and_reads_over_http_from_the_host(
    serve_image: str, container_index: Path
) -> None:
    with serving(serve_container(serve_image, index=container_index, read_only=True)) as served:
        async with Client(served.url) as client:
            assert "Acme Payments" in (client.instructions or "")
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert tools["search_docs"].input_schema["properties"]["language"]["enum"] == [
                "go",
                "python",
                "typescript",
            ]
            page = await client.call_tool(
                "search_docs", {"query": "retry a failed payment", "language": "go"}
            )
            assert not page.is_error and isinstance(page.structured_content, dict)
            hit = page.structured_content["hits"][0]
            assert hit["facets"].get("language") in ("go", None)
            window = await client.call_tool("get_doc", {"chunk_id": hit["chunk_id"], "context": 1})
            assert not window.is_error and isinstance(window.structured_content, dict)
            assert hit["chunk_id"] in [c["chunk_id"] for c in window.structured_content["chunks"]]


@pytest.mark.anyio
async def test_docker_run_i_serves_mcp_over_stdio(serve_image: str, container_index: Path) -> None:
    server = docker_run_stdio(
        serve_image,
        "-e",
        "DOCS_MCP_TRANSPORT=stdio",
        "-e",
        "DOCS_MCP_INDEX=/index",
        volumes=[(container_index, "/index")],
    )
    async with Client(server) as client:
        page = await client.call_tool("search_docs", {"query": "webhook signature", "limit": 2})
        assert not page.is_error and isinstance(page.structured_content, dict)
        assert len(page.structured_content["hits"]) == 2
        missing = await client.call_tool("get_doc", {"chunk_id": "no/such.md#chunk"})
        assert missing.is_error


def test_the_server_runs_as_a_non_root_user_on_a_read_only_root_filesystem(
    serve_image: str, container_index: Path
) -> None:
    with serving(serve_container(serve_image, index=container_index, read_only=True)) as served:
        container = served.container
        listing = container.exec(["python3", "-c", PROCESS_USERS]).output.decode()
        processes = json.loads(listing)  # [name, [real, effective, saved, fs uid]] per process
        assert "docs-mcp" in {name for name, _ in processes}, processes
        assert {uid for _, uids in processes for uid in uids} == {str(SERVE_UID)}, processes
        for path in ("/opt/venv/probe", "/index/probe", "/probe"):
            wrote = container.exec(["python3", "-c", f"open({path!r}, 'w')"])
            assert wrote.exit_code != 0, f"{path} was writable"
            assert "Read-only file system" in wrote.output.decode() or "Permission denied" in (
                wrote.output.decode()
            )


def test_sigterm_stops_the_server_within_two_seconds(serve_image: str, container_index: Path) -> None:
    with serving(serve_container(serve_image, index=container_index)) as served:
        wrapped = served.container.get_wrapped_container()
        started = time.monotonic()
        wrapped.kill(signal="SIGTERM")
        status = wrapped.wait(timeout=10)
        elapsed = time.monotonic() - started
        assert status["StatusCode"] == 0, served.container.get_logs()
        assert elapsed < 2.0, f"SIGTERM took {elapsed:.2f} s"


def test_sigterm_during_start_up_is_not_lost(serve_image: str, container_index: Path) -> None:
    """PID 1 drops signals it has no handler for: one sent before the server is ready must still stop it."""
    container = serve_container(serve_image, index=container_index)
    container.start()
    try:
        wrapped = container.get_wrapped_container()
        started = time.monotonic()
        wrapped.kill(signal="SIGTERM")
        wrapped.wait(timeout=10)
        assert time.monotonic() - started < 2.0
    finally:
        container.stop()


def test_the_healthcheck_turns_healthy_without_curl(serve_image: str, container_index: Path) -> None:
    with serving(serve_container(serve_image, index=container_index, read_only=True)) as served:
        waited = await_health(served.container, "healthy", timeout=60)
        wrapped = served.container.get_wrapped_container()
        wrapped.reload()
        health = wrapped.attrs["State"]["Health"]
        assert health["Status"] == "healthy"
        assert health["Log"][-1]["ExitCode"] == 0
    print(f"\nhealthy {waited:.1f} s after the server announced itself")


def test_the_image_holds_no_shell_package_manager_or_download_tool(serve_image: str) -> None:
    """The runtime is the interpreter, its libraries, tini and the environment (Dockerfile.serve's
    serve-root stage): nothing to run a script, install a package or fetch a file with."""
    tools = ("sh", "bash", "dash", "busybox", "curl", "wget", "apt-get", "dpkg", "perl", "ls", "cat")
    probe = (
        "import json, os, shutil; "
        f"print(json.dumps([t for t in {list(tools)!r} if shutil.which(t) or any("
        "os.path.lexists(os.path.join(d, t)) for d in ('/bin', '/sbin', '/usr/bin', '/usr/sbin'))]))"
    )
    ran = run_to_exit(serve_image, ["-c", probe], entrypoint="python3")
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.output) == []


def test_no_build_dependency_is_importable_in_the_serve_image(serve_image: str) -> None:
    probe = (
        "import importlib.util, json; "
        f"print(json.dumps([m for m in {list(BUILD_ONLY_MODULES)!r} if importlib.util.find_spec(m)]))"
    )
    ran = run_to_exit(serve_image, ["-c", probe], entrypoint="python3")
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.output) == []


def test_a_missing_index_stops_the_container_with_a_clear_error(serve_image: str, tmp_path: Path) -> None:
    ran = run_to_exit(
        serve_image,
        ["serve"],
        volumes=[(tmp_path, "/index", "ro")],
        env={"DOCS_MCP_INDEX": "/index/nothing-here"},
    )
    assert ran.exit_code == 1
    assert "/index/nothing-here" in ran.output


def test_a_bad_environment_value_is_a_usage_error_naming_the_variable(serve_image: str) -> None:
    ran = run_to_exit(serve_image, ["serve"], env={"DOCS_MCP_INDEX": "/index", "DOCS_MCP_PORT": "80a"})
    assert ran.exit_code == 2
    assert "DOCS_MCP_PORT" in ran.output


@pytest.mark.anyio
async def test_an_idx_image_bakes_an_artifact_pulled_by_digest_and_answers_offline(
    serve_image: str, container_index: Path, registry: Registry, tmp_path: Path
) -> None:
    """``scripts/images idx oci://REF@sha256:...``: the artifact is pulled and verified while the
    image builds (a registry on this host's 127.0.0.1), then served with no network at all."""
    published = publish(container_index, registry.ref("images/baked"), cache_dir=tmp_path / "publisher")
    (image,) = build_images(f"idx oci://{published.reference}")
    assert image == f"docs-mcp-serve:idx-{published.digest.removeprefix('sha256:')[:12]}"
    server = docker_run_stdio(image, "--network", "none", "--read-only", "-e", "DOCS_MCP_TRANSPORT=stdio")
    async with Client(server) as client:
        page = await client.call_tool("search_docs", {"query": "webhook signature", "limit": 2})
        assert not page.is_error and isinstance(page.structured_content, dict)
        assert page.structured_content["hits"]
    baked = run_to_exit(
        image, ["-c", "print(open('/index/.docs-mcp-artifact.json').read())"], entrypoint="python3"
    )
    assert json.loads(baked.output)["digest"] == published.digest


def test_an_idx_image_of_a_tag_needs_a_name(serve_image: str, registry: Registry) -> None:
    with pytest.raises(AssertionError, match="is a tag: pin it"):
        build_images(f"idx oci://{registry.ref('images/baked')}")
