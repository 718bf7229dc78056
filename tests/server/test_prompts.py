"""MCP prompts from the docs' ``*.template.md``: listed and filled in by a real MCP client, in process and
over stdio, by the single-index server and the multi-library one; no prompts capability without them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from server_support import CURSOR_KEY

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server.hub.opening import open_hub, open_server
from docs_mcp.server.hub.specs import parse_index_specs
from testkit.index_fixtures import write_docs

ANSWER = (
    "---\n"
    "name: answer\n"
    "description: Answer from these docs with citations\n"
    "arguments:\n"
    "  - name: question\n"
    "    description: The user's question\n"
    "    required: true\n"
    "  - name: language\n"
    "    description: The SDK language\n"
    "---\n"
    "Answer {{question}} from search_docs results only ({{language}}). Cite each chunk_id.\n"
)
OVERVIEW = "---\nname: overview\ndescription: Summarise the guides\n---\nSummarise the guides.\n"


@pytest.fixture(scope="module")
def prompted_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("prompted")
    files = {
        "guides/retries.md": "# Retries\n\n## Backoff\n\nExponential backoff with jitter.\n",
        "prompts/answer.template.md": ANSWER,
        "overview.template.md": OVERVIEW,
    }
    build(BuildOptions(docs_dir=write_docs(root / "docs", files), out=root / "out"))
    return root / "out"


@pytest.mark.anyio
async def test_prompts_are_listed_and_filled_in_process(prompted_index: Path) -> None:
    ready = open_server(prompted_index, key=CURSOR_KEY)
    async with Client(ready.server) as client:
        assert client.server_capabilities.prompts is not None
        listed = {prompt.name: prompt for prompt in (await client.list_prompts()).prompts}
        assert sorted(listed) == ["answer", "overview"]
        assert [(a.name, a.required) for a in listed["answer"].arguments or []] == [
            ("question", True),
            ("language", False),
        ]
        got = await client.get_prompt("answer", {"question": "How do retries back off?", "language": "go"})
        assert got.messages[0].role == "user"
        assert got.messages[0].content.text == (  # type: ignore[union-attr]
            "Answer How do retries back off? from search_docs results only (go). Cite each chunk_id."
        )
        assert (await client.get_prompt("overview")).messages[0].content.text == "Summarise the guides."  # type: ignore[union-attr]
        for name, arguments, expected in (
            ("answer", {}, "missing question"),
            ("answer", {"question": "q", "colour": "red"}, "colour not declared"),
            ("nope", {}, "Unknown prompt 'nope'; prompts: answer, overview"),
        ):
            with pytest.raises(MCPError, match=expected):
                await client.get_prompt(name, arguments)
        # The templates are not docs: searching their words finds nothing of them.
        page = await client.call_tool("search_docs", {"query": "Summarise the guides"})
        assert all("template" not in hit["chunk_id"] for hit in page.structured_content["hits"])  # type: ignore[index]


@pytest.mark.anyio
async def test_a_server_without_templates_offers_no_prompts(example_index: Path) -> None:
    ready = open_server(example_index, key=CURSOR_KEY)
    async with Client(ready.server) as client:
        assert client.server_capabilities.prompts is None
        with pytest.raises(MCPError):
            await client.list_prompts()


@pytest.mark.anyio
async def test_prompts_over_stdio(prompted_index: Path) -> None:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(prompted_index)]
    )
    async with Client(server) as client:
        assert [p.name for p in (await client.list_prompts()).prompts] == ["answer", "overview"]
        got = await client.get_prompt("answer", {"question": "retries?"})
        assert got.messages[0].content.text.startswith("Answer retries? from")  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_the_hub_lists_each_librarys_prompts_under_its_name(
    prompted_index: Path, example_index: Path
) -> None:
    ready = open_hub(
        parse_index_specs([f"acme={prompted_index}", f"example={example_index}"]), key=CURSOR_KEY
    )
    try:
        async with Client(ready.server) as client:
            assert client.server_capabilities.prompts is not None
            assert [p.name for p in (await client.list_prompts()).prompts] == ["acme.answer", "acme.overview"]
            got = await client.get_prompt("acme.answer", {"question": "backoff?"})
            assert "Answer backoff? from" in got.messages[0].content.text  # type: ignore[union-attr]
            with pytest.raises(MCPError, match="Unknown prompt 'answer'"):
                await client.get_prompt("answer", {"question": "q"})
    finally:
        ready.stop()
    plain = open_hub(parse_index_specs([f"example={example_index}", f"b={example_index}"]), key=CURSOR_KEY)
    try:
        async with Client(plain.server) as client:
            assert client.server_capabilities.prompts is None
    finally:
        plain.stop()


@pytest.mark.anyio
async def test_a_prompt_filled_past_the_answer_budget_is_refused_before_it_is_made(tmp_path: Path) -> None:
    """A 200 KB template repeating ``{{q}}`` 40,000 times turned a 1,000-character argument into a
    40 MB answer (a 20 KB one into 800 MB of it, and 3 GB of memory): every answer keeps to the
    server's budget, prompts too, and the refusal costs nothing to make."""
    bomb = (
        "---\nname: bomb\ndescription: d\narguments:\n  - name: q\n    required: true\n---\n"
        + "{{q}} " * 40_000
    )
    files = {"guides/a.md": "# A\n\n## B\n\nText.\n", "bomb.template.md": bomb, "answer.template.md": ANSWER}
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", files), out=tmp_path / "out"))
    ready = open_server(tmp_path / "out", key=CURSOR_KEY, max_tokens=2_000)
    async with Client(ready.server) as client:
        for argument in ("x" * 1_000, "x" * 20_000):
            with pytest.raises(MCPError, match=r"over this server's answer budget of 2,000; give shorter"):
                await client.get_prompt("bomb", {"q": argument})
        # A prompt within the budget is filled as before, and the server goes on answering.
        got = await client.get_prompt("answer", {"question": "q" * 1_000})
        assert got.messages[0].content.text.startswith("Answer qqq")  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="over this server's answer budget"):
            await client.get_prompt("answer", {"question": "q" * 7_000})
