"""``docs-mcp validate``: check manifests, hints and metadata; exit 1 on any error."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "validate",
        help="check a docs folder: manifests, hints, metadata taxonomy, encodings",
        description="Check a docs folder. Errors exit 1; warnings (such as files relying on the "
        "default h2 strategy) exit 0 unless --strict.",
    )
    parser.add_argument("--docs-dir", type=Path, required=True, help="the markdown folder to check")
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
        choices=("text", "json"),
        default="text",
        help="text (default): one 'path:line: severity: message [rule]' line per finding; "
        "json: the same as --json",
    )
    parser.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    parser.add_argument("--verbose", action="store_true", help="list every file a summary warning stands for")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.authoring.validate_output import FORMATS
    from docs_mcp.authoring.validation import validate

    report = validate(args.docs_dir, strict=args.strict)
    sys.stdout.write(FORMATS[args.format](report, args.verbose))
    if args.format == "text":
        print(report.summary(), file=sys.stderr)
    return 0 if report.ok else 1
