"""``docs-mcp chunk``: preview how files split into chunks (id, heading path, size)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from docs_mcp.cli.paths import path_argument
from docs_mcp.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "chunk",
        help="preview the chunks of a docs folder or one file",
        description="Show every chunk's id, heading path and size in characters.",
    )
    parser.add_argument("--docs-dir", type=path_argument, required=True, help="the markdown folder")
    parser.add_argument("--file", type=path_argument, help="only this file (path relative to --docs-dir)")
    parser.add_argument("--json", action="store_true", help="one JSON object per chunk (JSON lines)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.corpus.loader import load_corpus  # needs the build extra

    corpus = load_corpus(args.docs_dir)
    files = corpus.files
    if args.file is not None:
        wanted = _relative(args.file, args.docs_dir)
        files = [f for f in files if f.path == wanted]
        if not files:
            raise ConfigError(
                f"{str(args.file)!r} is not an indexed markdown file under {str(args.docs_dir)!r}; "
                "give its path relative to --docs-dir (templates and hidden folders are skipped)"
            )
    for file in files:
        for chunk in file.chunks:
            heading_path = [*chunk.breadcrumb, chunk.heading] if chunk.heading else list(chunk.breadcrumb)
            size = len(chunk.markdown)
            if args.json:
                row = {
                    "id": chunk.id,
                    "file": chunk.file_path,
                    "heading_path": heading_path,
                    "chars": size,
                    "start_line": chunk.start_line,
                    "end_line": chunk.end_line,
                    "metadata": dict(chunk.metadata),
                }
                print(json.dumps(row, ensure_ascii=False))
            else:
                print(f"{chunk.id}\t{' > '.join(heading_path) or '(whole file)'}\t{size} chars")
    errors = len(corpus.errors)
    if errors:
        print(f"{errors} validation error(s); run `docs-mcp validate` to see them", file=sys.stderr)
    return 0


def _relative(file: Path, docs_dir: Path) -> str:
    """``file`` as a posix path under the docs root: relative to it, or a path that includes it."""
    path = Path(file)
    if not path.is_absolute() and (docs_dir / path).exists():
        return path.as_posix()
    # Shells complete "examples/docs/guides/x.md"; accept that and absolute paths too.
    for candidate, base in ((path, docs_dir), (path.resolve(), docs_dir.resolve())):
        try:
            return candidate.relative_to(base).as_posix()
        except ValueError:
            continue
    return path.as_posix()
