"""Ask a docs-mcp index a question the way an agent does: over MCP, through `docs-mcp serve` on stdio.

    python scripts/ask.py --index .example-index "how do I retry a failed payment?" --language python

Starts the real server as a subprocess, lists its tools (with the facet enums injected from the
index), calls ``search_docs`` and then ``get_doc`` on the best hit with one neighbour each side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters


def _print_json(title: str, value: Any) -> None:
    print(f"\n== {title}")
    print(json.dumps(value, indent=2, ensure_ascii=False))


async def ask(index: Path, query: str, filters: dict[str, str]) -> int:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "docs_mcp", "serve", "--index", str(index)]
    )
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        facets = {
            name: spec["enum"]
            for name, spec in tools["search_docs"].input_schema["properties"].items()
            if "enum" in spec
        }
        _print_json("search_docs facets (enums injected from the index)", facets)
        found = await client.call_tool("search_docs", {"query": query, "limit": 3, **filters})
        page = found.structured_content or {}
        _print_json(f"search_docs {query!r} {filters}", page)
        if found.is_error or not page.get("hits"):
            return 1
        best = page["hits"][0]["chunk_id"]
        fetched = await client.call_tool("get_doc", {"chunk_id": best, "context": 1})
        for chunk in (fetched.structured_content or {}).get("chunks", []):
            print(f"\n== get_doc {chunk.get('chunk_id')} ({chunk.get('position')} of {chunk.get('total')})")
            print(chunk.get("markdown", "")[:600])
        return 1 if fetched.is_error else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("query")
    parser.add_argument("--language")
    parser.add_argument("--scope")
    args = parser.parse_args()
    filters = {k: v for k, v in {"language": args.language, "scope": args.scope}.items() if v}
    return asyncio.run(ask(args.index, args.query, filters))


if __name__ == "__main__":
    sys.exit(main())
