"""Access control for ``serve --transport http``: bearer tokens on ``/mcp``, the rest left open.

Two ways to accept a token, either or both:

- static tokens (``--auth-tokens FILE``, :mod:`docs_mcp.server.auth.tokens`), for a team's agents and
  service accounts;
- OAuth 2.1 resource-server mode as the MCP authorization specification describes it
  (``--auth-issuer`` and ``--auth-audience``, :mod:`docs_mcp.server.auth.jwt`): JWT access tokens
  from that issuer, for that audience, and the protected resource metadata (RFC 9728) at
  ``/.well-known/oauth-protected-resource`` (and under the resource's path) naming the issuer.

The MCP SDK does the HTTP side: its ``BearerAuthBackend`` reads the ``Authorization`` header and asks
the verifier, its ``RequireAuthMiddleware`` answers 401 ``invalid_token`` or 403 ``insufficient_scope``
with ``WWW-Authenticate: Bearer ...`` (and ``resource_metadata=`` in OAuth mode). :class:`AuthGate`
sends only ``/mcp`` through them: ``/healthz`` (probes, load balancers) and the page at ``/`` stay
open, and an unauthenticated request is answered before its body is read.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from docs_mcp.errors import ConfigError
from docs_mcp.loopback import is_loopback

_log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken, TokenVerifier
    from starlette.types import ASGIApp, Receive, Scope, Send

    from docs_mcp.server.auth.tokens import TokenFile

__all__ = ["PROTECTED_RESOURCE_PATH", "AuthGate", "AuthOptions", "auth_gate", "load_tokens"]

PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"


@dataclass(frozen=True)
class AuthOptions:
    """Who may call ``/mcp``. ``audience`` is the server's public ``/mcp`` URL (the resource the
    issuer binds tokens to); ``scopes`` must all be granted by a JWT (static tokens hold them all)."""

    tokens_file: Path | None = None
    issuer: str | None = None
    audience: str | None = None
    scopes: Sequence[str] = ()

    @property
    def enabled(self) -> bool:
        return self.tokens_file is not None or self.issuer is not None

    def check(self) -> None:
        """Raises ConfigError for an issuer without audience (or the reverse), or a URL that is not
        https (plain http only on loopback, for a local issuer)."""
        if (self.issuer is None) != (self.audience is None):
            raise ConfigError(
                "--auth-issuer and --auth-audience go together: the issuer's URL and this server's "
                "public /mcp URL (e.g. https://docs.example.com/mcp)"
            )
        if self.scopes and self.issuer is None:
            raise ConfigError("--auth-scope needs --auth-issuer: static tokens carry no scopes")
        for flag, url in (("--auth-issuer", self.issuer), ("--auth-audience", self.audience)):
            if url is not None:
                _check_url(flag, url)


def _check_url(flag: str, url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and is_loopback(parts.hostname):
        return
    raise ConfigError(f"{flag} {url!r}: give an https:// URL (plain http only for 127.0.0.1 or localhost)")


def load_tokens(options: AuthOptions) -> TokenFile | None:
    """The static tokens, read now so that a bad file stops the start (ConfigError naming its line)."""
    if options.tokens_file is None:
        return None
    from docs_mcp.server.auth.tokens import TokenFile

    return TokenFile(options.tokens_file)


class _Verifier:
    """The SDK's ``TokenVerifier``: a static token first (a hash and a compare), else a JWT."""

    def __init__(self, tokens: TokenFile | None, jwt: TokenVerifier | None, scopes: Sequence[str]) -> None:
        self._tokens = tokens
        self._jwt = jwt
        self._scopes = list(scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        from mcp.server.auth.provider import AccessToken

        if self._tokens is not None and self._tokens.accepts(token):
            return AccessToken(token=token, client_id="static-token", scopes=self._scopes)
        if self._jwt is not None:
            try:
                return await self._jwt.verify_token(token)
            except Exception as error:  # a token is the sender's input: never a 500 for one
                _log.warning("auth: bearer token refused (%s while verifying it)", type(error).__name__)
        return None


class AuthGate:
    """Routes ``path`` through the SDK's bearer check, the protected resource metadata to its
    handler, everything else straight to ``app``."""

    def __init__(self, app: ASGIApp, *, path: str, verifier: TokenVerifier, options: AuthOptions) -> None:
        from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend, RequireAuthMiddleware
        from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
        from mcp.server.auth.settings import AuthSettings
        from starlette.middleware.authentication import AuthenticationMiddleware
        from starlette.routing import Route, Router

        self._app = app
        self._path = path
        metadata_url = None
        self._metadata: ASGIApp | None = None
        if options.issuer is not None and options.audience is not None:
            # The SDK's settings keep a path-less URL as given: an issuer is compared character for
            # character (RFC 8414), so "https://id.example.com" must not become ".../".
            settings = AuthSettings.model_validate(
                {
                    "issuer_url": options.issuer,
                    "resource_server_url": options.audience,
                    "validate_token_resource": False,  # JwtVerifier checks the audience itself
                }
            )
            assert settings.resource_server_url is not None
            metadata_url = build_resource_metadata_url(settings.resource_server_url)
            routes = create_protected_resource_routes(
                settings.resource_server_url,
                [settings.issuer_url],
                scopes_supported=list(options.scopes) or None,
            )
            if urlsplit(str(metadata_url)).path != PROTECTED_RESOURCE_PATH:
                # Also where a client that knows only the host looks first.
                routes.append(Route(PROTECTED_RESOURCE_PATH, routes[0].endpoint, methods=["GET", "OPTIONS"]))
            self._metadata = Router(routes=list(routes))
        required = RequireAuthMiddleware(app, list(options.scopes), metadata_url)
        self._protected = AuthenticationMiddleware(required, backend=BearerAuthBackend(verifier))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            if path.rstrip("/") == self._path:
                await self._protected(scope, receive, send)
                return
            if self._metadata is not None and path.startswith(PROTECTED_RESOURCE_PATH):
                await self._metadata(scope, receive, send)
                return
        await self._app(scope, receive, send)


def auth_gate(app: ASGIApp, options: AuthOptions | None, *, path: str) -> ASGIApp:
    """``app`` behind :class:`AuthGate` when ``options`` enable access control, else ``app`` itself."""
    if options is None or not options.enabled:
        return app
    options.check()
    jwt_verifier: TokenVerifier | None = None
    if options.issuer is not None and options.audience is not None:
        from docs_mcp.server.auth.jwt import JwtVerifier

        jwt_verifier = JwtVerifier(options.issuer, options.audience)
    verifier = _Verifier(load_tokens(options), jwt_verifier, options.scopes)
    return AuthGate(app, path=path, verifier=verifier, options=options)
