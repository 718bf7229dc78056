"""The ``docs-mcp`` command: parse arguments, call one library function, print.

Each subcommand lives in its own module under ``docs_mcp.cli.commands`` exposing
``register(subparsers)`` (adds its parser and sets ``func``) and is imported only when it is the
command given, so ``serve`` never pays for build-time imports. ``docs-mcp --help`` and ``--version``
import no command module: the listing shows the first line of each module's docstring
(``"``docs-mcp NAME``: what it does"``), read without running the module. A command whose optional
extra is not installed exits 2 with one line naming it (``pip install 'docs-mcp-index[build]'``).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from docs_mcp import __version__
from docs_mcp.errors import DocsMcpError, MissingExtra, UsageError
from docs_mcp.extras import install_line, missing_extra
from docs_mcp.redact import redact

# name -> module under docs_mcp.cli.commands; order is the order shown in --help
COMMANDS: dict[str, str] = {
    "validate": "validate",
    "fix": "fix",
    "chunk": "chunk",
    "build": "build",
    "search": "search",
    "get": "get",
    "serve": "serve",
    "publish": "publish",
    "pull": "pull",
    "union": "union",
    "eval": "eval",
    "agent-eval": "agent_eval",
}

_BUILD_COMMANDS = ("validate", "fix", "chunk", "build")
_PROVIDER_EXTRAS = ("local", "openai")
EXIT_FAILURE = 1  # the command ran and found a problem (validation errors, build refused)
EXIT_USAGE = 2


def build_parser(only: str | None = None, argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``docs-mcp`` parser with command ``only`` registered in full and the others listed
    (``argv``, the arguments to parse, only shapes the message of a missing extra).

    Raises:
        MissingExtra: ``only``'s module needs an optional extra that is not installed.
    """
    parser = argparse.ArgumentParser(
        prog="docs-mcp",
        description="Turn a folder of markdown docs into a search index and serve it to agents over MCP.",
        epilog=f"The base install ({install_line()}) searches and serves; validate, fix, chunk and "
        f"build need {install_line('build')} (building with embeddings: "
        f"{install_line('build', 'local')} or [build,openai]), publish and pull {install_line('artifact')}. "
        "Run docs-mcp COMMAND --help for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"docs-mcp {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        if name != only:
            # Listed in --help without importing the module (and what it imports: lancedb, markdown-it).
            subparsers.add_parser(name, help=_summary(module_name))
            continue
        try:
            module = importlib.import_module(f"docs_mcp.cli.commands.{module_name}")
        except ImportError as error:
            _raise_missing_extra(error, name, argv)
        module.register(subparsers)
    return parser


def _command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The sub-parser of ``command``, or ``parser`` itself when no command was given."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            chosen: argparse.ArgumentParser = action.choices[command]
            return chosen
    return parser


def _raise_missing_extra(error: ImportError, command: str | None, argv: Sequence[str]) -> NoReturn:
    """Re-raise ``error`` as ``MissingExtra`` when an optional extra provides the missing module; the
    install line names every extra the command line needs (``build`` and the embedding provider's)."""
    # agent-eval reads YAML (build) and talks to models through openai (with tenacity's retries).
    needed: tuple[str, ...] = ("build",) if command in _BUILD_COMMANDS else ()
    needed += ("build", "openai") if command == "agent-eval" else ()
    missing = missing_extra(error, f"`docs-mcp {command}`", with_extras=needed + _provider_extra(argv))
    if missing is None:
        raise error
    raise missing from error


def _provider_extra(argv: Sequence[str]) -> tuple[str, ...]:
    """The extra of the ``--embedding-provider`` given in ``argv`` (``local``, ``openai``), if any."""
    for position, arg in enumerate(argv):
        name, equals, value = arg.partition("=")
        if name == "--embedding-provider":
            chosen = value if equals else (argv[position + 1] if position + 1 < len(argv) else "")
            return (chosen,) if chosen in _PROVIDER_EXTRAS else ()
    return ()


def _summary(module_name: str) -> str | None:
    """The command's summary: its module docstring's first paragraph after ``docs-mcp NAME``:, in
    plain text (the docstring's double backticks are markup for the source, not for --help)."""
    spec = importlib.util.find_spec(f"docs_mcp.cli.commands.{module_name}")
    get_source: Any = getattr(spec.loader, "get_source", None) if spec is not None else None
    source = get_source(spec.name) if get_source is not None and spec is not None else None
    docstring = ast.get_docstring(ast.parse(source)) if source else None
    if not docstring:
        return None
    paragraph = " ".join(docstring.split("\n\n")[0].split())
    return paragraph.partition(": ")[2].rstrip(".").replace("``", "") or None


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # Import only the chosen command's module: `serve` must not import build-time code.
    chosen = next((a for a in args_list if a in COMMANDS), None)
    try:
        parser = build_parser(only=chosen, argv=args_list)
        args, unknown = parser.parse_known_args(args_list)
        if unknown:
            # The chosen command's usage, not the top-level one (argparse's own error would give that).
            _command_parser(parser, chosen).error(f"unrecognized arguments: {' '.join(unknown)}")
        if getattr(args, "func", None) is None:
            parser.print_help()
            return EXIT_USAGE
        try:
            code = int(args.func(args))
        except ImportError as error:  # a command importing its library lazily, in run()
            _raise_missing_extra(error, chosen, args_list)
        sys.stdout.flush()  # here, so that a reader gone away is the BrokenPipeError below
        return code
    except BrokenPipeError:
        return _reader_gone()
    except (MissingExtra, UsageError) as error:
        print(f"docs-mcp: error: {redact(str(error))}", file=sys.stderr)
        return EXIT_USAGE
    except DocsMcpError as error:
        print(f"docs-mcp: error: {redact(str(error))}", file=sys.stderr)
        return EXIT_FAILURE
    except OSError as error:  # a path the system refused (too long, a loop, no permission): one line
        where = f": {error.filename}" if error.filename is not None else ""
        print(f"docs-mcp: error: {redact(error.strerror or str(error))}{redact(where)}", file=sys.stderr)
        return EXIT_FAILURE
    except KeyboardInterrupt:
        print("docs-mcp: interrupted", file=sys.stderr)
        return 130


def _reader_gone() -> int:
    """The reader of stdout closed it (``docs-mcp search ... | head -1``): stop quietly, as Python's
    docs advise, pointing stdout at /dev/null so that flushing it at exit raises nothing more."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
