"""The ``docs-mcp`` command: parse arguments, call one library function, print.

Each subcommand lives in its own module under ``docs_mcp.cli.commands`` exposing
``register(subparsers)`` (adds its parser and sets ``func``) and is imported lazily, so ``serve``
never pays for build-time imports.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError

# name -> module under docs_mcp.cli.commands; order is the order shown in --help
COMMANDS: dict[str, str] = {
    "validate": "validate",
    "chunk": "chunk",
    "build": "build",
    "search": "search",
    "get": "get",
    "serve": "serve",
    "publish": "publish",
    "pull": "pull",
    "eval": "eval",
}

EXIT_OK = 0
EXIT_FAILURE = 1  # the command ran and found a problem (validation errors, build refused)
EXIT_USAGE = 2


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="docs-mcp", description=__doc__.splitlines()[0] if __doc__ else None
    )
    parser.add_argument("--version", action="version", version=f"docs-mcp {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            # Still list the command in --help without importing its module.
            subparsers.add_parser(name)
            continue
        module = importlib.import_module(f"docs_mcp.cli.commands.{module_name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # Import only the chosen command's module: `serve` must not import build-time code.
    chosen = next((a for a in args_list if a in COMMANDS), None)
    parser = build_parser(only=chosen)
    args = parser.parse_args(args_list)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except DocsMcpError as error:
        print(f"docs-mcp: error: {error}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("docs-mcp: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
