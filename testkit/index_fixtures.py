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


def _sdk_manifest(**metadata: str) -> str:
    return json.dumps({"version": "1", "strategy": {"chunk_by": "h2"}, "metadata": metadata})


def _readme(title: str, language: str) -> str:
    head = f"# {title}\n\n" if title else ""
    operations = "".join(
        f"## Widget operation {n}\n\nCall widget operation {n} from {language}: it updates a widget.\n\n"
        for n in range(1, 9)
    )
    return (
        f"{head}## Retry configuration\n\nConfigure retries with exponential backoff in {language}.\n\n"
        f"{operations}"
    )


# One SDK in four languages as SDK generators lay them out (folders and case differ per language),
# with `language` folding (`vector_collapse`), a declared alias and resources: issue 15's features.
SDK_FILES: dict[str, str] = {
    ".docs-mcp.json": json.dumps(
        {
            "version": "1",
            "strategy": {"chunk_by": "h2"},
            "taxonomy": {
                "language": {
                    "vector_collapse": True,
                    "properties": {"go": {}, "java": {"aliases": ["jvm"]}, "python": {}, "typescript": {}},
                },
                "scope": {"properties": {"global-guide": {"mcp_resource": True}, "sdk-specific": {}}},
                "api": {"properties": {"acme": {}, "other": {}}},
            },
        }
    ),
    "guides/.docs-mcp.json": _sdk_manifest(scope="global-guide", api="acme"),
    "guides/retries.md": (
        "# Retries\n\n## Backoff\n\nEvery SDK retries failed requests with exponential backoff.\n\n"
        "## Idempotency\n\nRetried widget requests carry an idempotency key.\n"
    ),
    **{
        f"{language}/.docs-mcp.json": _sdk_manifest(language=language, scope="sdk-specific", api="acme")
        for language in ("go", "java", "python", "typescript")
    },
    "java/docs/models/components/Foo.md": "# Foo\n\n## Fields\n\nThe Foo widget model: name, colour, size.\n",
    "python/docs/models/foo.md": "# Foo\n\n## Fields\n\nThe Foo widget model: name, colour (a dataclass).\n",
    "go/docs/models/components/foo.md": "# Foo\n\n## Fields\n\nThe Foo widget model: Name, Colour, Size.\n",
    "typescript/README.md": _readme("Acme TypeScript SDK", "TypeScript"),
    "python/README.md": _readme("", "Python"),
    "python/README-PYPI.md": _readme("", "Python"),
    "go/README.md": _readme("github.com/acme/acme-go", "Go"),
    "java/README.md": _readme("Acme Java SDK", "Java"),
    "other/.docs-mcp.json": _sdk_manifest(language="python", scope="sdk-specific", api="other"),
    "other/README.md": _readme("", "Python"),
}
