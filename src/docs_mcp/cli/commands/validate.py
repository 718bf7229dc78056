"""``docs-mcp validate``: check manifests, hints and metadata; exit 1 on any error."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from docs_mcp.cli.paths import path_argument


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "validate",
        help="check a docs folder: docs manifests, hints, metadata taxonomy, encodings",
        description="Check a docs folder. Errors exit 1; warnings (such as files relying on the "
        "default h2 strategy) exit 0 unless --strict.",
    )
    parser.add_argument("--docs-dir", type=path_argument, required=True, help="the markdown folder to check")
    parser.add_argument(
        "--json",
        dest="format",
        action="store_const",
        const="json",
        default="text",
        help="print one JSON object: ok, counts and every finding (summaries list all their files)",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="text (default): one 'path:line: severity: message [rule]' line per finding; "
        "json: the same as --json; github: one '::error file=...,line=...::message' (or ::warning) "
        "GitHub Actions workflow command per finding, the file relative to $GITHUB_WORKSPACE (else "
        "the current folder), so each lands as an annotation on its file and line",
    )
    parser.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    parser.add_argument(
        "--site-config",
        type=path_argument,
        help="the site generator's config (mkdocs.yml, docusaurus.config.js|ts, Sphinx conf.py), read as "
        "data; default: the root manifest's site.config, else one found in or beside the docs folder",
    )
    parser.add_argument("--verbose", action="store_true", help="list every file a summary warning stands for")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.corpus.validation import validate
    from docs_mcp.corpus.validation_output import FORMATS, OutputOptions

    report = validate(args.docs_dir, strict=args.strict, site_config=args.site_config)
    # Annotation paths are relative to the checkout GitHub names files by.
    root = Path(os.environ.get("GITHUB_WORKSPACE") or ".")
    options = OutputOptions(verbose=args.verbose, docs_dir=args.docs_dir, root=root)
    sys.stdout.write(FORMATS[args.format](report, options))
    if args.format != "json":
        print(report.summary(), file=sys.stderr)
    return 0 if report.ok else 1
