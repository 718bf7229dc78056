"""``docs-mcp serve``: answer MCP clients from a built index over stdio or Streamable HTTP.

Each flag's default can come from an environment variable (a flag given on the command line wins),
so a container is configured by ``-e`` alone: see ``_EPILOG``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import Any

from docs_mcp.cli.paths import path_argument
from docs_mcp.errors import ConfigError
from docs_mcp.server.hub.specs import RefreshIntervals, parse_refresh_intervals
from docs_mcp.server.startup.options import DEFAULT_HOST, DEFAULT_PORT
from docs_mcp.server.tools.budget import BYTES_PER_TOKEN, MAX_TOKENS_DEFAULT, MAX_TOKENS_MAX, MAX_TOKENS_MIN

TRANSPORTS = ("stdio", "http")

_EPILOG = """environment (each sets the default of its flag; a flag given wins):
  DOCS_MCP_INDEX             --index: a folder or oci://REF, or NAME=REF,... (comma-separated) for
                             several libraries
  DOCS_MCP_TRANSPORT         --transport (stdio or http)
  DOCS_MCP_HOST              --host
  DOCS_MCP_PORT              --port
  DOCS_MCP_ALLOW_HOSTS       --allow-host, comma-separated
  DOCS_MCP_ALLOW_ORIGINS     --allow-origin, comma-separated
  DOCS_MCP_REFRESH_INTERVAL  --refresh-interval: SECONDS for every tag and/or NAME=SECONDS,...
                             (comma-separated), e.g. 300,sdk=30
  DOCS_MCP_CACHE_DIR         --cache-dir
  DOCS_MCP_NO_PAGE           --no-page when set to 1
  DOCS_MCP_MAX_TOKENS        --max-tokens
  DOCS_MCP_FEEDBACK_LOG      --feedback-log
  DOCS_MCP_CURSOR_SECRET     the key signing pagination cursors: give every replica behind a load
                             balancer the same value (default: a random key per process)
  DOCS_MCP_REGISTRY_USERNAME, DOCS_MCP_REGISTRY_PASSWORD   registry credentials for oci:// indexes
  DOCS_MCP_AUTH_TOKENS_FILE  --auth-tokens
  DOCS_MCP_AUTH_ISSUER       --auth-issuer
  DOCS_MCP_AUTH_AUDIENCE     --auth-audience
  DOCS_MCP_AUTH_SCOPES       --auth-scope, comma-separated"""


def _transport(value: str) -> str:
    if value not in TRANSPORTS:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a transport: use stdio or http (--transport or DOCS_MCP_TRANSPORT)"
        )
    return value


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a port: use 0-65535 (--port or DOCS_MCP_PORT; 0 picks a free one)"
        )
    return port


def _refresh(value: str) -> RefreshIntervals:
    try:
        return parse_refresh_intervals([value])
    except ConfigError as error:
        raise argparse.ArgumentTypeError(
            f"{error} (--refresh-interval or DOCS_MCP_REFRESH_INTERVAL)"
        ) from None


class _RefreshAction(argparse.Action):
    """``--refresh-interval``: repeated values add up (``300``, ``sdk=30``); the first given on the command
    line replaces the environment's; a library (or the bare interval) given twice is a usage error."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(values, RefreshIntervals)
        current = getattr(namespace, self.dest) if getattr(namespace, "_refresh_given", False) else None
        namespace._refresh_given = True
        if current is None:
            setattr(namespace, self.dest, values)
            return
        twice = set(current.by_library) & set(values.by_library)
        if twice or (current.every_tag is not None and values.every_tag is not None):
            given = ", ".join(sorted(twice)) or "the interval of every tag"
            raise argparse.ArgumentError(self, f"{given} is given twice")
        merged = RefreshIntervals(
            values.every_tag if values.every_tag is not None else current.every_tag,
            {**current.by_library, **values.by_library},
        )
        setattr(namespace, self.dest, merged)


def _max_tokens(value: str) -> int:
    from docs_mcp.errors import ConfigError
    from docs_mcp.server.tools.budget import parse_max_tokens

    try:
        return parse_max_tokens(value, "--max-tokens or DOCS_MCP_MAX_TOKENS")
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def _listed(environ: Mapping[str, str], name: str) -> list[str]:
    return [item.strip() for item in environ.get(name, "").split(",") if item.strip()]


class _IndexAction(argparse.Action):
    """``--index``: one value as given (a string, as before several could be), repeated ones as a list;
    the first given on the command line replaces the environment's."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        given = getattr(namespace, "_index_given", False)
        current = getattr(namespace, self.dest)
        if not given:
            setattr(namespace, self.dest, values)
        else:
            setattr(namespace, self.dest, [*(current if isinstance(current, list) else [current]), values])
        namespace._index_given = True


def index_values(index: str | list[str]) -> list[str]:
    """The ``--index`` values: repeated flags, or one value (``DOCS_MCP_INDEX`` or a flag) that is split
    at commas when it names libraries (``NAME=REF,NAME=REF``)."""
    if isinstance(index, list):
        return index
    if "=" in index and "," in index:
        return [item.strip() for item in index.split(",") if item.strip()]
    return [index]


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    environ: Mapping[str, str] | None = None,
) -> None:
    env = os.environ if environ is None else environ
    parser = subparsers.add_parser(
        "serve",
        help="serve a built index to MCP clients (tools search_docs and get_doc)",
        description="Serve a built index to MCP clients over stdio (default) or Streamable HTTP at /mcp.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    index = env.get("DOCS_MCP_INDEX") or None
    parser.add_argument(
        "--index",
        action=_IndexAction,
        default=index,
        required=index is None,
        metavar="[NAME[@VERSION[!]]=]REF",
        help="the --out folder of `docs-mcp build` (reopened when rebuilt), or oci://REGISTRY/REPO:TAG. "
        "Repeat as NAME=REF to serve several libraries in one server (NAME@VERSION=REF for versions of "
        "one library; '!' after the version marks the latest, else the highest is) "
        "(env DOCS_MCP_INDEX, comma-separated)",
    )
    # String defaults go through `type`, so a bad environment value is a usage error naming it.
    parser.add_argument(
        "--transport",
        type=_transport,
        default=env.get("DOCS_MCP_TRANSPORT") or "stdio",
        metavar="{stdio,http}",
        help="stdio (default) or http (env DOCS_MCP_TRANSPORT)",
    )
    parser.add_argument(
        "--host",
        default=env.get("DOCS_MCP_HOST") or DEFAULT_HOST,
        help=f"HTTP bind address (default {DEFAULT_HOST}; env DOCS_MCP_HOST)",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=env.get("DOCS_MCP_PORT") or str(DEFAULT_PORT),
        help=f"HTTP port; 0 picks a free one (default {DEFAULT_PORT}; env DOCS_MCP_PORT)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        metavar="HOST[:PORT|:*]",
        help="accept this Host header on /mcp besides loopback (repeatable; needed behind a proxy; "
        "env DOCS_MCP_ALLOW_HOSTS)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        metavar="ORIGIN",
        help="accept browser requests from this Origin besides loopback, e.g. https://app.example.com "
        "(repeatable; env DOCS_MCP_ALLOW_ORIGINS)",
    )
    parser.add_argument(
        "--refresh-interval",
        type=_refresh,
        action=_RefreshAction,
        default=env.get("DOCS_MCP_REFRESH_INTERVAL") or RefreshIntervals(),
        metavar="[NAME=]SECONDS",
        help="with --index oci://REF:TAG, poll the tag this often and swap to each new digest; with several "
        "indexes, NAME=SECONDS (or NAME@VERSION=SECONDS) sets one library's own interval, over a bare "
        "SECONDS for every tag (repeatable; env DOCS_MCP_REFRESH_INTERVAL, comma-separated: 300,sdk=30)",
    )
    parser.add_argument(
        "--cache-dir",
        type=path_argument,
        default=env.get("DOCS_MCP_CACHE_DIR") or None,
        help="artifact cache (default $XDG_CACHE_HOME/docs-mcp or ~/.cache/docs-mcp; env DOCS_MCP_CACHE_DIR)",
    )
    parser.add_argument(
        "--no-page",
        action="store_true",
        default=env.get("DOCS_MCP_NO_PAGE", "") == "1",
        help="over HTTP, do not serve the search page at / (an MCP client of /mcp; env DOCS_MCP_NO_PAGE=1)",
    )
    parser.add_argument(
        "--max-tokens",
        type=_max_tokens,
        default=env.get("DOCS_MCP_MAX_TOKENS") or str(MAX_TOKENS_DEFAULT),
        metavar="N",
        help=f"default budget of one answer, in tokens counted as one per {BYTES_PER_TOKEN} bytes "
        f"({MAX_TOKENS_MIN}-{MAX_TOKENS_MAX}, default {MAX_TOKENS_DEFAULT}: below Claude Code's 10,000-token "
        "warning; a call may pass its own max_tokens; env DOCS_MCP_MAX_TOKENS)",
    )
    parser.add_argument(
        "--feedback-log",
        type=path_argument,
        default=env.get("DOCS_MCP_FEEDBACK_LOG") or None,
        metavar="FILE",
        help="offer the docs_feedback tool and append its reports (query, chunk ids, score, reason, "
        "index build) to FILE as JSON lines (env DOCS_MCP_FEEDBACK_LOG)",
    )
    parser.add_argument(
        "--insecure", action="store_true", help="plain HTTP to the registry (default only for localhost)"
    )
    _register_auth(parser, env)
    parser.set_defaults(
        func=run,
        env_allow_host=_listed(env, "DOCS_MCP_ALLOW_HOSTS"),
        env_allow_origin=_listed(env, "DOCS_MCP_ALLOW_ORIGINS"),
        env_auth_scope=_listed(env, "DOCS_MCP_AUTH_SCOPES"),
    )


def _register_auth(parser: argparse.ArgumentParser, env: Mapping[str, str]) -> None:
    auth = parser.add_argument_group("access control (HTTP only; /healthz and / stay open)")
    auth.add_argument(
        "--auth-tokens",
        type=path_argument,
        default=env.get("DOCS_MCP_AUTH_TOKENS_FILE") or None,
        metavar="FILE",
        help="accept these bearer tokens on /mcp: one token, or sha256:HEX of it, per line; reread "
        "when the file changes (env DOCS_MCP_AUTH_TOKENS_FILE)",
    )
    auth.add_argument(
        "--auth-issuer",
        default=env.get("DOCS_MCP_AUTH_ISSUER") or None,
        metavar="URL",
        help="accept JWT access tokens from this OAuth issuer, checked against its JWKS "
        "(env DOCS_MCP_AUTH_ISSUER)",
    )
    auth.add_argument(
        "--auth-audience",
        default=env.get("DOCS_MCP_AUTH_AUDIENCE") or None,
        metavar="URL",
        help="with --auth-issuer: this server's public /mcp URL, the tokens' audience "
        "(env DOCS_MCP_AUTH_AUDIENCE)",
    )
    auth.add_argument(
        "--auth-scope",
        action="append",
        metavar="SCOPE",
        help="with --auth-issuer: a scope every token must grant, else 403 (repeatable; "
        "env DOCS_MCP_AUTH_SCOPES)",
    )


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run(args: argparse.Namespace) -> int:
    # A SIGTERM during start-up, before the transport installs its graceful handlers, ends the run
    # like Ctrl-C. Where the server is PID 1 (a container without an init such as the image's tini)
    # the kernel would otherwise drop it, and the engine would kill the server 10 s later.
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    # serve() imports the server stack itself, with the collector paused (docs_mcp.server.startup.collector).
    from docs_mcp.server.auth.gate import AuthOptions, load_tokens
    from docs_mcp.server.startup.options import HttpOptions, RegistryOptions
    from docs_mcp.server.startup.serving import serve

    auth = AuthOptions(
        tokens_file=args.auth_tokens,
        issuer=args.auth_issuer,
        audience=args.auth_audience,
        scopes=args.auth_scope if args.auth_scope is not None else args.env_auth_scope,
    )
    if auth.enabled:
        if args.transport != "http":
            raise ConfigError("--auth-tokens and --auth-issuer protect --transport http (stdio has no peer)")
        auth.check()
        load_tokens(auth)  # a bad tokens file stops here, before the index is pulled
    options = HttpOptions(
        host=args.host,
        port=args.port,
        # Flags replace the environment's list rather than adding to it, like every other flag.
        allowed_hosts=args.allow_host if args.allow_host is not None else args.env_allow_host,
        allowed_origins=args.allow_origin if args.allow_origin is not None else args.env_allow_origin,
        page=not args.no_page,
        auth=auth if auth.enabled else None,
    )
    serve(
        index_values(args.index),
        transport=args.transport,
        http=options,
        announce=lambda message: print(f"docs-mcp: {message}", file=sys.stderr, flush=True),
        registry=RegistryOptions(
            cache_dir=args.cache_dir,
            insecure=True if args.insecure else None,
            refresh_interval=args.refresh_interval.every_tag,
            library_refresh=args.refresh_interval.by_library,
        ),
        max_tokens=args.max_tokens,
        feedback_log=args.feedback_log,
    )
    return 0
