"""``docs-mcp build``: validate, chunk, embed and write the index; exit 1 if the docs have errors."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from docs_mcp.build.pipeline import BuildOptions, BuildProgress, build
from docs_mcp.embedding.provider import EmbeddingSettings, provider_names
from docs_mcp.errors import ValidationFailed


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "build",
        help="build the search index of a docs folder",
        description="Validate and chunk a docs folder, embed the chunks, and write OUT/.lancedb plus an "
        "index "
        "manifest. Refuses (exit 1, nothing written) when validation finds errors; replaces a previous "
        "index atomically.",
    )
    parser.add_argument("--docs-dir", type=Path, required=True, help="the markdown folder to index")
    parser.add_argument(
        "--out", type=Path, required=True, help="the index folder to write (replaced atomically)"
    )
    parser.add_argument("--description", help="a one-line description of the corpus, recorded in the index")
    parser.add_argument(
        "--embedding-provider",
        choices=provider_names(),
        help="vector embeddings (default: the docs' root manifest `embedding.provider`, else none)",
    )
    parser.add_argument("--embedding-model", help="the provider's model (default: the provider's own)")
    parser.add_argument(
        "--embedding-dimensions", type=int, help="vector width, when the model supports choosing"
    )
    parser.add_argument("--embedding-batch-size", type=int, help="chunks per embedding request (default 64)")
    parser.add_argument("--embedding-concurrency", type=int, help="embedding requests in flight at once")
    parser.add_argument("--embedding-base-url", help="an OpenAI-compatible server's base URL")
    parser.add_argument("--cache-dir", type=Path, help="embedding cache folder (default OUT/.docs-mcp-cache)")
    parser.add_argument("--quiet", action="store_true", help="no progress, only the summary line")
    parser.set_defaults(func=run)


class _Progress:
    """Progress on stderr: one rewritten line on a terminal, a line per stage or batch otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.stage = ""

    def __call__(self, event: BuildProgress) -> None:
        total = f"/{event.total}" if event.total is not None else ""
        line = f"{event.stage}: {event.done}{total} {event.detail}".rstrip()
        if self.tty:
            self.stream.write("\r\033[K" + line + ("\n" if event.stage == "done" else ""))
        elif event.stage == "embedding" or event.stage != self.stage:
            # Off a terminal, per-file lines would flood logs: report stage changes and batches only.
            self.stream.write(line + "\n")
        self.stage = event.stage
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    options = BuildOptions(
        docs_dir=args.docs_dir,
        out=args.out,
        description=args.description,
        embedding_provider=args.embedding_provider,
        embedding=EmbeddingSettings(
            model=args.embedding_model,
            dimensions=args.embedding_dimensions,
            batch_size=args.embedding_batch_size,
            concurrency=args.embedding_concurrency,
            base_url=args.embedding_base_url,
        ),
        cache_dir=args.cache_dir,
        progress=None if args.quiet else _Progress(sys.stderr),
    )
    try:
        result = build(options)
    except ValidationFailed as failed:
        for finding in failed.findings:
            print(finding.format(), file=sys.stderr)
        raise
    embedding = result.manifest.embedding
    vectors = (
        f"{embedding.provider} {embedding.model} ({embedding.dimensions}-d)"
        if embedding
        else "full text only"
    )
    cache = (
        f", cache {result.cache_hits} hits / {result.cache_misses} misses"
        if result.cache_hits is not None
        else ""
    )
    print(
        f"built {result.out}: {result.file_count} files, {result.chunk_count} chunks, {vectors}{cache}, "
        f"{len(result.warnings)} warnings, {result.seconds:.1f} s"
    )
    return 0
