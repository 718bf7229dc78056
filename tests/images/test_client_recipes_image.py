"""The serve image's client recipes in docs/clients.md (``docker run -i ...``), run as a client
would: the entry's command with the index path substituted answers ``tools/list`` over stdio."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from client_recipes import IMAGE, LOCAL_INDEX, Recipe, recipes
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.docker

DOCKER = [r for r in recipes() if r.entry.get("command") == "docker"]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
@pytest.mark.parametrize("recipe", DOCKER, ids=[r.label for r in DOCKER])
async def test_an_image_recipe_starts_a_server_that_lists_its_tools(
    recipe: Recipe, serve_image: str, container_index: Path
) -> None:
    args = [a.replace(LOCAL_INDEX, str(container_index)) for a in recipe.entry["args"]]
    assert IMAGE in args
    args = [serve_image if a == IMAGE else a for a in args]
    parameters = StdioServerParameters(command="docker", args=args, env=dict(os.environ))
    async with Client(parameters) as client:
        listed = await client.list_tools()
    assert sorted(tool.name for tool in listed.tools) == ["get_doc", "search_docs"]
