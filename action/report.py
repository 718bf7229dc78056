"""The docs-mcp Action's outputs and job summary, from what its run left in WORK (action/run.sh).

Runs with the build image's Python (``python3 report.py WORK``): reads ``build.json`` and
``publish.json`` (``docs-mcp build --json``, ``publish --json``) and ``serve-image.txt`` when they
exist; writes ``WORK/outputs.txt`` (``name=value`` lines for ``$GITHUB_OUTPUT``) and
``WORK/summary.md`` (for ``$GITHUB_STEP_SUMMARY``). The environment says the rest: STAGE
(``validate`` when validation failed), ERRORS, WARNINGS, STRICT, DOCS_DIR, REPOSITORY, SERVE_BASE.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def _load(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def summary(work: Path, env: dict[str, str]) -> tuple[dict[str, str], str]:
    """(outputs, markdown) for the run whose files are in ``work``."""
    errors, warnings = int(env.get("ERRORS", "0")), int(env.get("WARNINGS", "0"))
    docs_dir = env.get("DOCS_DIR", "docs")
    found = f"{_plural(errors, 'error')}, {_plural(warnings, 'warning')}"
    lines = [f"## docs-mcp: `{docs_dir}`", ""]
    if env.get("STAGE") == "validate":
        strict = " (fail-on-warnings: warnings fail)" if env.get("STRICT") not in (None, "", "0") else ""
        lines += [
            f"Validation failed: {found}{strict}. Each finding is an annotation on its file and line.",
            "",
        ]
        return {}, "\n".join(lines) + "\n"
    build = _load(work / "build.json") or {}
    published = _load(work / "publish.json") or {}
    embedding = build.get("embedding")
    vectors = (
        f"{embedding['provider']} {embedding['model']} ({embedding['dimensions']}-d)"
        if embedding
        else "full text only"
    )
    pinned = f"{published['reference'].split('@')[0]}@{published['digest']}"
    lines += [
        "| files | chunks | validation | embeddings | uploaded |",
        "|---|---|---|---|---|",
        f"| {build.get('files', '?')} | {published['chunk_count']} | {found} | {vectors} | "
        + (
            "nothing (the registry already held this index)"
            if published.get("reused")
            else f"{published['uploaded_bytes'] / 2**20:.1f} MiB"
        )
        + " |",
        "",
        f"Artifact: `{pinned}` (tags {', '.join(f'`{t}`' for t in published.get('tags', []))})",
        "",
        "Serve it over MCP (Streamable HTTP at `http://127.0.0.1:8000/mcp`):",
        "",
        "```sh",
        f"docker run --rm -p 127.0.0.1:8000:8000 -v docs-mcp-cache:/var/cache/docs-mcp \\\n"
        f"    -e DOCS_MCP_INDEX=oci://{pinned} {env.get('SERVE_BASE', 'docs-mcp-serve')}",
        "```",
        "",
    ]
    outputs = {
        "reference": pinned,
        "digest": published["digest"],
        "chunk-count": str(published["chunk_count"]),
    }
    serve_file = work / "serve-image.txt"
    serve_image = serve_file.read_text(encoding="utf-8").strip() if serve_file.is_file() else ""
    outputs["serve-image"] = serve_image
    if serve_image:
        lines += [
            "Or the serve image with this index baked in (no registry access at run time):",
            "",
            "```sh",
            f"docker run --rm -p 127.0.0.1:8000:8000 {serve_image}",
            "```",
            "",
        ]
    return outputs, "\n".join(lines)


def main(work: Path) -> int:
    outputs, markdown = summary(work, dict(os.environ))
    (work / "summary.md").write_text(markdown, encoding="utf-8")
    if outputs:
        (work / "outputs.txt").write_text("".join(f"{k}={v}\n" for k, v in outputs.items()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
