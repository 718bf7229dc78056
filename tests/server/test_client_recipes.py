"""Every client recipe in docs/clients.md works when pasted: each JSON block parses, and each server
entry's command (paths substituted, ``docs-mcp`` this checkout's) starts a server that answers
``tools/list``; an HTTP entry's URL answers it from a running server. The serve image's entries run
in tests/images/test_client_recipes_image.py."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest
from client_recipes import HTTP_URL, LOCAL_INDEX, OCI_INDEX, Recipe, json_blocks, recipes
from mcp import Client, StdioServerParameters
from registry_support import Registry
from server_support import server_env, start_http_server, stop

from docs_mcp.artifact import publish

DOCS_MCP = str(Path(sys.executable).parent / "docs-mcp")
RECIPES = recipes()
GIT_SOURCE = "git+https://github.com/OWNER/docs-mcp"
TOOLS = ["get_doc", "search_docs"]


@pytest.fixture(scope="module")
def index(example_index: Path) -> Path:
    return example_index


@pytest.fixture(scope="module")
def published(index: Path, registry: Registry, tmp_path_factory: pytest.TempPathFactory) -> str:
    reference = registry.ref("recipes/docs-index", "v1")
    publish(index, reference, cache_dir=tmp_path_factory.mktemp("publisher"))
    return f"oci://{reference}"


def test_every_json_block_parses_and_names_servers() -> None:
    blocks = json_blocks()
    assert len(blocks) >= 8
    assert all(block.get("mcpServers") or block.get("servers") for block in blocks)


def _command(recipe: Recipe, index: Path, request: pytest.FixtureRequest, cache: Path) -> list[str]:
    """The entry's command line as a client would start it, this machine's paths substituted."""
    command, args = recipe.entry["command"], list(recipe.entry["args"])
    if command == "uvx":
        # uvx runs the command of the package it installs (tried from a package index in
        # tests/packaging/test_package_index.py); here that command is this checkout's. Until the
        # first release the recipes install from git (the package index has no such project yet).
        assert args[:3] == ["--from", GIT_SOURCE, "docs-mcp"]
        command, args = "docs-mcp", args[3:]
    assert command == "docs-mcp", recipe
    if OCI_INDEX in args:  # only these need the registry (Debian's docker-registry)
        args = [request.getfixturevalue("published") if a == OCI_INDEX else a for a in args]
    args = [str(index) if a == LOCAL_INDEX else a for a in args]
    return [DOCS_MCP, *args, "--cache-dir", str(cache)]


STDIO = [r for r in RECIPES if r.entry.get("command") in ("docs-mcp", "uvx")]
HTTP = [r for r in RECIPES if "url" in r.entry]


@pytest.mark.anyio
@pytest.mark.parametrize("recipe", STDIO, ids=[r.label for r in STDIO])
async def test_a_stdio_recipe_starts_a_server_that_lists_its_tools(
    recipe: Recipe, index: Path, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    command = _command(recipe, index, request, tmp_path / "cache")
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
    async with Client(parameters) as client:
        listed = await client.list_tools()
    assert sorted(tool.name for tool in listed.tools) == TOOLS


@pytest.mark.parametrize("recipe", HTTP, ids=[r.label for r in HTTP])
def test_an_http_recipe_reaches_a_running_server(recipe: Recipe, index: Path) -> None:
    assert recipe.entry["url"] == HTTP_URL
    assert recipe.entry.get("type", "http") == "http"
    server = start_http_server(index)  # on a free port: the recipe's 8000 may be taken here
    try:
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        answer = httpx.post(
            recipe.entry["url"].replace("http://127.0.0.1:8000", server.base),
            json=message,
            headers={"Accept": "application/json, text/event-stream"},
            timeout=15,
        ).json()
        assert sorted(tool["name"] for tool in answer["result"]["tools"]) == TOOLS
    finally:
        stop(server)
