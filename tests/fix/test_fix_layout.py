"""Layout inference: which folders are SDKs, in which language."""

from __future__ import annotations

from docs_mcp.fix.layout import infer_layout
from docs_mcp.fix.outline import scan
from docs_mcp.fix.strategy_choice import choose

PY = "# P\n\n```python\nx = 1\n```\n"
TS = "# T\n\n```ts\nconst x = 1;\n```\n"


def folders(files: dict[str, str]) -> dict[str, str]:
    layout = infer_layout(scan(path, text) for path, text in files.items())
    return {sdk.folder: sdk.language for sdk in layout.sdk_folders}


def test_language_folders_side_by_side_are_sdks_whatever_their_depth() -> None:
    files = {"dub/go/README.md": PY, "dub/python/README.md": PY, "dub/typescript/docs/models/a.md": TS}
    assert folders(files) == {"dub/go": "go", "dub/python": "python", "dub/typescript": "typescript"}


def test_a_language_folder_under_sdks_is_an_sdk_and_aliases_name_the_language() -> None:
    assert folders({"sdks/ts/README.md": "# T\n", "guides/a.md": PY}) == {"sdks/ts": "typescript"}
    assert folders({"clients/golang/README.md": "# G\n"}) == {"clients/golang": "go"}


def test_a_lone_language_folder_needs_its_code_to_be_in_that_language() -> None:
    mostly_python = {f"tutorial/python/{n}.md": PY for n in range(5)}
    assert folders(mostly_python) == {"tutorial/python": "python"}
    prose_only = {f"tutorial/python/{n}.md": "# About Python\n\nHistory.\n" for n in range(5)}
    assert folders(prose_only) == {}


def test_the_outermost_sdk_folder_wins_over_a_language_folder_inside_it() -> None:
    files = {"sdks/typescript/README.md": TS, "sdks/typescript/examples/python/a.md": PY, "sdks/go/a.md": PY}
    assert folders(files) == {"sdks/go": "go", "sdks/typescript": "typescript"}


def test_an_outline_estimates_chunk_sizes_per_heading_level() -> None:
    outline = scan("a.md", "# T\n\nintro\n\n## A\n\naaaa\n\n### A1\n\nx\n\n## B\n\nbb\n")
    assert outline.chunk_sizes[0] == (len("# T\n\nintro\n\n## A\n\naaaa\n\n### A1\n\nx\n\n## B\n\nbb\n"),)
    assert (
        len(outline.chunk_sizes[1]) == 1
        and len(outline.chunk_sizes[2]) == 3
        and len(outline.chunk_sizes[3]) == 4
    )
    assert outline.title == "T" and outline.sample == "intro"


def test_pages_of_api_stubs_get_a_chunk_per_documented_object_not_one_per_page() -> None:
    """openai-agents' ``ref/*.md`` (``# `Agent``` / ``::: agents.agent``) look small as read but
    become a per-entry API reference: fix drafts the strategy the loader gives such pages."""
    stubs = [scan(f"ref/m{n}.md", f"# `M{n}`\n\n::: agents.m{n}\n") for n in range(6)]
    mixed = [scan("api.md", "# API\n\n::: httpx.request\n"), scan("guide.md", "# Guide\n\nWords.\n")]
    containers = [scan(f"guide/g{n}.md", f"# G{n}\n\n::: tip\nShort.\n:::\n") for n in range(6)]
    assert [outline.api_stubs for outline in (stubs[0], mixed[0], containers[0])] == [1, 1, 0]
    decisions = choose([*stubs, *mixed, *containers], "", 20_000)
    assert [(d.pattern, d.strategy) for d in decisions] == [
        (None, {"chunk_by": "h2"}),
        ("api.md", {"chunk_by": "h6", "min_chunk_size": 200}),
        ("ref/*.md", {"chunk_by": "h6", "min_chunk_size": 200}),
        ("guide/*.md", {"chunk_by": "file"}),
    ]
