"""``docs-mcp validate``: check manifests, hints and metadata; exit 1 on any error."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from docs_mcp.authoring.validate import validate


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "validate",
        help="check a docs folder: manifests, hints, metadata taxonomy, encodings",
        description="Check a docs folder. Errors exit 1; warnings (such as files relying on the "
        "default h2 strategy) exit 0.",
    )
    parser.add_argument("--docs-dir", type=Path, required=True, help="the markdown folder to check")
    parser.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: one 'path:line: severity: message [rule]' line per finding; json: one object",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    report = validate(args.docs_dir)
    if args.format == "json":
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        for finding in report.findings:
            print(finding.format())
        print(report.summary(), file=sys.stderr)
    return 0 if report.ok else 1
