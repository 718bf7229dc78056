"""A small real docs tree with facets, for the index, build and search tests (importable from tests/)."""

from __future__ import annotations

import json
from pathlib import Path

HOSTILE_LANGUAGE = "py'thon\\ -- ünï\"code"

FILES: dict[str, str] = {
    "guides/.docs-mcp.json": json.dumps({"version": "1", "metadata": {"scope": "global-guide"}}),
    "guides/retries.md": (
        "# Retries\n\nHow the SDKs retry failed requests.\n\n"
        "## Backoff strategy\n\nRetries use exponential backoff with jitter between attempts.\n\n"
        "## Timeouts\n\nEvery request has a timeout; a timed out request is retried.\n"
    ),
    "guides/pagination.md": (
        "# Pagination\n\n## Cursors\n\nList endpoints return a cursor for the next page.\n"
    ),
    "python/.docs-mcp.json": json.dumps(
        {"version": "1", "metadata": {"language": "python", "scope": "sdk-specific"}}
    ),
    "python/links.md": (
        "# Links\n\n## Create a link\n\nCall `sdk.links.create_link(url)` to shorten a URL in Python.\n\n"
        "## Delete a link\n\nCall `sdk.links.delete(id)` to remove it.\n\n"
        "## Retry configuration\n\nPass `RetryConfig` to configure retries in Python.\n"
    ),
    "typescript/.docs-mcp.json": json.dumps(
        {"version": "1", "metadata": {"language": "typescript", "scope": "sdk-specific"}}
    ),
    "typescript/links.md": (
        "# Links\n\n## Create a link\n\n"
        "Call `sdk.links.createLink(url)` with a `CreateLinkRequest` in TypeScript.\n\n"
        "## Retry configuration\n\nPass a `retryConfig` option to configure retries in TypeScript.\n"
    ),
    "hostile/.docs-mcp.json": json.dumps(
        {"version": "1", "metadata": {"language": HOSTILE_LANGUAGE, "scope": "sdk-specific"}}
    ),
    "hostile/odd.md": (
        "# Odd\n\n## Quotes 'and' backslashes\n\nA page about O'Reilly's \\\\ paths -- and ünïcode retries.\n"
    ),
}


def write_docs(root: Path, files: dict[str, str] | None = None) -> Path:
    """Write ``files`` (default ``FILES``) under ``root`` and return it."""
    for relative, text in (files or FILES).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
