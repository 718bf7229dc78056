"""Several libraries served by the real CLI over stdio and HTTP, from folders and from a real registry,
each ``oci://`` tag refreshed on its own under load."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from library_fixtures import acme_index, example_v1, example_v2, sdk_index
from load_support import Load, call
from mcp import Client, StdioServerParameters
from registry_support import Registry
from server_support import CURSOR_KEY, READY, HttpServer, pump_lines, server_env, stop

from docs_mcp.artifact import publish
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import index_state

__all__ = ["acme_index", "example_v1", "example_v2", "sdk_index"]  # fixtures used here

pytestmark = pytest.mark.timeout(180)
SERVE = [sys.executable, "-m", "docs_mcp", "serve"]


def _named(*pairs: tuple[str, Path | str]) -> list[str]:
    return [argument for name, ref in pairs for argument in ("--index", f"{name}={ref}")]


def _start_http(*arguments: str, **env: str) -> HttpServer:
    """``serve --transport http --port 0`` with ``arguments``; waits (bounded) until it listens."""
    process = subprocess.Popen(
        [*SERVE, *arguments, "--transport", "http", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(**env),
    )
    lines: list[str] = []
    ready = threading.Event()
    reader = threading.Thread(target=pump_lines, args=(process.stderr, lines, ready, READY), daemon=True)
    reader.start()
    urls = (
        [line.rsplit(" at ", 1)[-1].strip() for line in lines if " at http://" in line]
        if ready.wait(60)
        else []
    )
    if not urls:
        process.kill()
        process.wait(10)
        raise AssertionError("server did not start:\n" + "".join(lines))
    return HttpServer(process=process, url=urls[0], stderr_lines=lines, reader=reader)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_several_folders_over_stdio(sdk_index: Path, example_v2: Path, acme_index: Path) -> None:
    command = [*SERVE, *_named(("example", example_v2), ("acme", acme_index), ("sdks", sdk_index))]
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
    async with Client(parameters) as client:
        search = next(t for t in (await client.list_tools()).tools if t.name == "search_docs")
        assert search.input_schema["properties"]["library"]["enum"] == ["acme", "example", "sdks"]
        page = await client.call_tool(
            "search_docs", {"query": "create a link", "library": "sdks", "limit": 3}
        )
        assert not page.is_error and isinstance(page.structured_content, dict)
        single = index_state(DocsIndex.open(sdk_index), CURSOR_KEY).tools
        alone = single.search_docs({"query": "create a link", "limit": 3})[0]["hits"]
        assert [h["chunk_id"] for h in page.structured_content["hits"]] == [h["chunk_id"] for h in alone]
        hit = page.structured_content["hits"][0]
        window = await client.call_tool("get_doc", {"library": "sdks", "chunk_id": hit["chunk_id"]})
        assert not window.is_error


def test_several_folders_over_http_from_the_environment(
    example_v1: Path, example_v2: Path, acme_index: Path
) -> None:
    env = f"example@1.0!={example_v1},example@2.0={example_v2},acme={acme_index}"  # 1.0 marked latest
    server = _start_http(DOCS_MCP_INDEX=env)
    try:
        health = httpx.get(f"{server.base}/healthz").json()
        assert [(i["library"], i["version"]) for i in health["indexes"]] == [
            ("example", "1.0"),
            ("example", "2.0"),
            ("acme", None),
        ]
        assert all(i["index"] and i["digest"] is None for i in health["indexes"])
        result = call(server.url, "search_docs", {"query": "payment", "library": "example"})
        assert {hit["version"] for hit in result["structuredContent"]["hits"]} == {"1.0"}
        newer = {"query": "exponential backoff", "library": "example", "version": "2.0"}
        result = call(server.url, "search_docs", newer)
        assert {hit["version"] for hit in result["structuredContent"]["hits"]} == {"2.0"}
    finally:
        stop(server)


def _digests(base: str) -> dict[str, str | None]:
    return {i["library"]: i["digest"] for i in httpx.get(f"{base}/healthz").json()["indexes"]}


def test_each_tag_refreshes_on_its_own_under_load(
    registry: Registry, example_v2: Path, example_v1: Path, acme_index: Path, tmp_path: Path
) -> None:
    pay, widgets = registry.ref("hub/pay"), registry.ref("hub/widgets")
    first = publish(example_v2, pay, cache_dir=tmp_path / "publisher")
    widgets_first = publish(acme_index, widgets, cache_dir=tmp_path / "publisher")
    server = _start_http(
        *_named(("pay", f"oci://{pay}"), ("widgets", f"oci://{widgets}"), ("local", acme_index)),
        "--refresh-interval",
        "0.2",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    load = Load(server.url, workers=3, get_chunk_id="guides/pagination.md#pagination/cursors").start()
    try:
        assert _digests(server.base) == {"pay": first.digest, "widgets": widgets_first.digest, "local": None}
        widgets_page = call(server.url, "search_docs", {"query": "widget", "library": "widgets", "limit": 1})
        pay_page = call(server.url, "search_docs", {"query": "payment", "library": "pay", "limit": 1})
        time.sleep(0.4)
        second = publish(example_v1, pay, cache_dir=tmp_path / "publisher")
        deadline = time.monotonic() + 30
        while _digests(server.base)["pay"] != second.digest:
            assert time.monotonic() < deadline, "pay never moved to its new digest"
            time.sleep(0.05)
        assert _digests(server.base)["widgets"] == widgets_first.digest  # the other tag did not move
        # The widgets cursor still continues; the pay one is stale.
        following = call(
            server.url, "search_docs", {"cursor": widgets_page["structuredContent"]["next_cursor"]}
        )
        assert not following.get("isError"), following
        stale = call(server.url, "search_docs", {"cursor": pay_page["structuredContent"]["next_cursor"]})
        assert stale["isError"] and "stale" in stale["content"][0]["text"]
        # A tag that vanishes (every refresh of it fails) leaves every index serving.
        shutil.rmtree(registry.storage / "docker/registry/v2/repositories/hub/widgets/_manifests/tags")
        time.sleep(0.6)
        assert not call(server.url, "search_docs", {"query": "widget", "library": "widgets"}).get("isError")
        assert _digests(server.base)["widgets"] == widgets_first.digest
    finally:
        load.stop()
        stop(server)
    assert load.failures == []
    assert load.calls > 20
    logged = "".join(server.stderr_lines)
    assert "pay@2.0: now serving" in logged and "refresh of" in logged


def test_each_tag_is_polled_at_its_own_interval(
    registry: Registry, example_v2: Path, example_v1: Path, acme_index: Path, tmp_path: Path
) -> None:
    """``DOCS_MCP_REFRESH_INTERVAL=600,pay=0.2``: both tags move, only pay (its own 0.2 s) follows in
    time; widgets keeps every tag's 600 s; /healthz shows each interval."""
    pay, widgets = registry.ref("hub/pay-own"), registry.ref("hub/widgets-own")
    pay_first = publish(example_v2, pay, cache_dir=tmp_path / "publisher")
    widgets_first = publish(acme_index, widgets, cache_dir=tmp_path / "publisher")
    server = _start_http(
        *_named(("pay", f"oci://{pay}"), ("widgets", f"oci://{widgets}")),
        "--cache-dir",
        str(tmp_path / "cache"),
        DOCS_MCP_REFRESH_INTERVAL="600,pay=0.2",
    )
    try:
        rows = httpx.get(f"{server.base}/healthz").json()["indexes"]
        assert {i["library"]: i["refresh_interval"] for i in rows} == {"pay": 0.2, "widgets": 600.0}
        pay_second = publish(example_v1, pay, cache_dir=tmp_path / "publisher")
        widgets_second = publish(example_v2, widgets, cache_dir=tmp_path / "publisher")
        assert widgets_second.digest != widgets_first.digest and pay_second.digest != pay_first.digest
        deadline = time.monotonic() + 30
        while _digests(server.base)["pay"] != pay_second.digest:
            assert time.monotonic() < deadline, "pay never moved to its new digest"
            time.sleep(0.05)
        time.sleep(1.0)  # five of pay's intervals more: widgets, polled every 600 s, has not looked yet
        assert _digests(server.base)["widgets"] == widgets_first.digest
        hits = call(server.url, "search_docs", {"query": "widget", "library": "widgets"})["structuredContent"]
        assert hits["hits"], hits
    finally:
        stop(server)
    logged = "".join(server.stderr_lines)
    assert "pay@2.0: now serving" in logged and "widgets: now serving" not in logged, logged
