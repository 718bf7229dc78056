"""docs-mcp-serve with several indexes: ``DOCS_MCP_INDEX=NAME=/path,NAME=/path``, each folder mounted
read-only into a read-only container, answered over HTTP from this host (issue 22)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from image_support import SERVE_PORT, await_log_line, serve_container
from mcp import Client

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.tools.app import index_state
from testkit.index_fixtures import SDK_FILES, write_docs

pytestmark = [pytest.mark.docker, pytest.mark.timeout(300)]
KEY = b"serve-image-hub-test-cursor-key!"  # any key: the in-process answer is compared by chunk id
_LISTENING = re.compile(r"serving 2 indexes \[(.*)\] ready in .* at http://")


@pytest.fixture(scope="module")
def two_indexes(examples_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """examples/docs and the four-language SDK, built full text on this host."""
    root = tmp_path_factory.mktemp("hub-image")
    build(BuildOptions(docs_dir=examples_docs, out=root / "payments", description="Acme payments"))
    build(BuildOptions(docs_dir=write_docs(root / "sdk", SDK_FILES), out=root / "widgets"))
    return {"payments": root / "payments", "widgets": root / "widgets"}


@pytest.mark.anyio
async def test_the_serve_image_serves_two_mounted_indexes_from_docs_mcp_index(
    serve_image: str, two_indexes: dict[str, Path]
) -> None:
    listed = ",".join(f"{name}=/indexes/{name}" for name in two_indexes)
    container = serve_container(serve_image, env={"DOCS_MCP_INDEX": listed}, read_only=True)
    for name, folder in two_indexes.items():
        container.with_volume_mapping(str(folder), f"/indexes/{name}", "ro")
    container.start()
    try:
        served = await_log_line(container, _LISTENING, 60).group(1)
        assert "payments (" in served and "widgets (" in served, served
        port = int(container.get_docker_client().port(container.get_container_id(), SERVE_PORT))
        base = f"http://127.0.0.1:{port}"
        rows = httpx.get(f"{base}/healthz", timeout=10).json()["indexes"]
        assert [(row["library"], row["source"]) for row in rows] == [
            ("payments", "/indexes/payments"),
            ("widgets", "/indexes/widgets"),
        ]
        async with Client(f"{base}/mcp") as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            library = tools["search_docs"].input_schema["properties"]["library"]
            assert library["enum"] == ["payments", "widgets"]
            arguments = {"query": "retry configuration", "limit": 3}
            page = await client.call_tool("search_docs", {**arguments, "library": "widgets"})
    finally:
        container.stop()
    assert not page.is_error and isinstance(page.structured_content, dict)
    hits = page.structured_content["hits"]
    assert hits and {hit["library"] for hit in hits} == {"widgets"}
    # The container's answer is the widgets index's own, as a single-index server gives it here.
    alone = index_state(DocsIndex.open(two_indexes["widgets"]), KEY).tools.search_docs(arguments)[0]
    assert [hit["chunk_id"] for hit in hits] == [hit["chunk_id"] for hit in alone["hits"]]
