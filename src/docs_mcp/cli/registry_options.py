"""The registry flags ``publish`` and ``pull`` share, and the credentials they give."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from docs_mcp.cli.paths import path_argument
from docs_mcp.errors import ConfigError

if TYPE_CHECKING:
    from docs_mcp.artifact import Credentials


def add_registry_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--username", help="registry user name (the password comes from --password-stdin)")
    parser.add_argument(
        "--password-stdin", action="store_true", help="read the registry password or token from stdin"
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="plain HTTP (the default only for a registry on localhost/127.0.0.1)",
    )
    parser.add_argument(
        "--cache-dir",
        type=path_argument,
        help="artifact cache (default $XDG_CACHE_HOME/docs-mcp or ~/.cache/docs-mcp)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")


def credentials_from(args: argparse.Namespace) -> Credentials | None:
    """Explicit credentials from ``--username`` and ``--password-stdin``, or None to look elsewhere
    (environment, Docker's config). Raises ``ConfigError`` when only one of the two is given."""
    if bool(args.username) != bool(args.password_stdin):
        raise ConfigError("--username and --password-stdin go together")
    if not args.username:
        return None
    from docs_mcp.artifact import Credentials

    password = sys.stdin.read().rstrip("\r\n")
    if not password:
        raise ConfigError("--password-stdin read an empty password")
    return Credentials(args.username, password, "--username/--password-stdin")


def registry_arguments(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments ``publish`` and ``pull`` share: cache, credentials, ``insecure`` (None
    lets a loopback registry use plain HTTP). Raises ``ConfigError`` for half a credential pair."""
    return {
        "cache_dir": args.cache_dir,
        "credentials": credentials_from(args),
        "insecure": True if args.insecure else None,
    }
