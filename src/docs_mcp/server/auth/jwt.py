"""OAuth 2.1 resource-server mode: JWT access tokens checked against the issuer's published keys.

The issuer's metadata (RFC 8414 ``/.well-known/oauth-authorization-server``, else OpenID Connect
discovery) names its ``jwks_uri``; the key set is fetched from there, cached, fetched again when a
token names a key id it lacks (the issuer rotated its keys; at most once per ``refetch_seconds``, so
made-up key ids cannot make this server hammer the issuer) and after ``max_age_seconds`` (a key the
issuer withdrew stops being accepted). Signatures, ``exp``/``nbf``, ``iss`` and ``aud`` are checked
by PyJWT; only asymmetric algorithms are accepted (never ``none``, never an HMAC keyed with a public
key). A refused token is logged by the reason's class name alone: never the token, never a claim.

Imported only when ``--auth-issuer`` is given, so no other way of serving pays for PyJWT.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2
import jwt
from mcp.server.auth.provider import AccessToken

__all__ = ["ASYMMETRIC_ALGORITHMS", "JwksKeys", "JwtVerifier", "metadata_urls"]

ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)
_ALGORITHMS_OF_KEY_TYPE: dict[str, frozenset[str]] = {
    "RSA": frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}),
    "EC": frozenset({"ES256", "ES384", "ES512"}),
    "OKP": frozenset({"EdDSA"}),
}
_LEEWAY_SECONDS = 30  # clock skew between the issuer and this server
_FETCH_TIMEOUT_SECONDS = 5.0
_log = logging.getLogger(__name__)


def metadata_urls(issuer: str) -> list[str]:
    """Where ``issuer`` publishes its metadata: RFC 8414 (path after the well-known part), then OIDC."""
    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{issuer.rstrip('/')}/.well-known/openid-configuration",
    ]


@dataclass(frozen=True)
class _Key:
    jwk: jwt.PyJWK
    algorithm: str | None  # the JWK's own "alg", when it names one


class JwksKeys:
    """The issuer's signing keys by key id, fetched on demand (see the module docstring)."""

    def __init__(
        self,
        issuer: str,
        *,
        jwks_url: str | None = None,
        refetch_seconds: float = 10.0,
        max_age_seconds: float = 300.0,
    ) -> None:
        self._issuer = issuer
        self._jwks_url = jwks_url
        self._refetch_seconds = refetch_seconds
        self._max_age_seconds = max_age_seconds
        self._keys: dict[str | None, _Key] = {}
        self._fetched_at: float | None = None
        self._lock = asyncio.Lock()

    async def key_for(self, kid: str | None) -> _Key | None:
        """The key named ``kid`` (a token without one: the set's only key), fetching as needed."""
        now = time.monotonic()
        stale = self._fetched_at is None or now - self._fetched_at >= self._max_age_seconds
        missing = self._find(kid) is None
        may_refetch = self._fetched_at is None or now - self._fetched_at >= self._refetch_seconds
        if stale or (missing and may_refetch):
            async with self._lock:
                if self._fetched_at is None or self._fetched_at <= now:  # not done while we waited
                    await self._fetch()
        return self._find(kid)

    def _find(self, kid: str | None) -> _Key | None:
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid) if kid is not None else None

    async def _fetch(self) -> None:
        self._fetched_at = time.monotonic()  # a failure waits out refetch_seconds too
        try:
            async with httpx2.AsyncClient(timeout=_FETCH_TIMEOUT_SECONDS, follow_redirects=False) as client:
                url = self._jwks_url or await self._discover(client)
                response = await client.get(url, headers={"Accept": "application/json"})
                response.raise_for_status()
                self._keys = _parse_key_set(response.json())
        except (httpx2.HTTPError, ValueError, jwt.PyJWTError) as error:
            _log.warning("auth: the issuer's keys could not be fetched (%s: %s)", type(error).__name__, error)

    async def _discover(self, client: httpx2.AsyncClient) -> str:
        for url in metadata_urls(self._issuer):
            response = await client.get(url, headers={"Accept": "application/json"})
            if response.status_code == 404:
                continue
            response.raise_for_status()
            metadata = response.json()
            if not isinstance(metadata, dict) or metadata.get("issuer") != self._issuer:
                raise ValueError(f"{url} is not the metadata of issuer {self._issuer}")
            jwks_uri = metadata.get("jwks_uri")
            if not isinstance(jwks_uri, str) or not jwks_uri:
                raise ValueError(f"{url} names no jwks_uri")
            self._jwks_url = jwks_uri
            return jwks_uri
        raise ValueError(f"issuer {self._issuer} publishes no authorization server or OpenID metadata")


def _parse_key_set(data: Any) -> dict[str | None, _Key]:
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise ValueError("the JWKS is not an object with a keys list")
    keys: dict[str | None, _Key] = {}
    for entry in data["keys"]:
        if not isinstance(entry, dict) or entry.get("use", "sig") != "sig":
            continue
        try:
            jwk = jwt.PyJWK(entry)
        except jwt.PyJWTError:
            continue  # a key type or curve this server cannot use: the others still count
        keys[jwk.key_id] = _Key(jwk, entry.get("alg"))
    return keys


def _scopes(claims: Mapping[str, Any]) -> list[str]:
    scope = claims.get("scope")
    if isinstance(scope, str):
        return scope.split()
    scp = claims.get("scp")
    return [str(s) for s in scp] if isinstance(scp, list) else []


class JwtVerifier:
    """An MCP SDK ``TokenVerifier``: a JWT access token signed by ``issuer`` for ``audience``."""

    def __init__(self, issuer: str, audience: str, keys: JwksKeys | None = None) -> None:
        self.issuer = issuer
        self.audience = audience
        self._keys = keys or JwksKeys(issuer)

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return _refused("malformed")
        algorithm = header.get("alg")  # the header is the sender's: any JSON value, a list included
        if not isinstance(algorithm, str) or algorithm not in ASYMMETRIC_ALGORITHMS:
            return _refused("algorithm not accepted")
        kid = header.get("kid")
        key = await self._keys.key_for(kid if isinstance(kid, str) else None)
        if key is None:
            return _refused("unknown key")
        if key.algorithm is not None and key.algorithm != algorithm:
            return _refused("algorithm is not the key's")
        if algorithm not in _ALGORITHMS_OF_KEY_TYPE.get(str(key.jwk.key_type), ()):
            # A key whose JWK names no "alg", used with another family's algorithm (an RSA key and
            # ES256): PyJWT would hand the wrong kind of key to the algorithm, which raises.
            return _refused("algorithm is not of the key's type")
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key.jwk.key,
                algorithms=[algorithm],
                audience=self.audience,
                issuer=self.issuer,
                leeway=_LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError as error:
            return _refused(type(error).__name__)
        subject = claims.get("sub")
        client_id = claims.get("client_id") or claims.get("azp") or subject or "unknown"
        return AccessToken(
            token=token,
            client_id=str(client_id),
            scopes=_scopes(claims),
            expires_at=int(claims["exp"]),
            resource=self.audience,
            subject=str(subject) if subject is not None else None,
            claims={"iss": claims["iss"]},
        )


def _refused(reason: str) -> AccessToken | None:
    _log.info("auth: bearer token refused (%s)", reason)
    return None
