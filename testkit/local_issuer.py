"""A local OAuth issuer on 127.0.0.1 (RFC 8414 metadata and a JWKS, keys made here) for the auth tests
and the throughput benchmark.

It signs what the tests ask for (expired, for another audience, unsigned, ...) with PyJWT, and can
rotate its key, so a server's key cache is exercised against a real HTTP issuer.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


@dataclass
class SigningKey:
    kid: str
    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    names_alg: bool = True  # the JWK's "alg" member is optional (RFC 7517): some issuers leave it out

    def public_jwk(self) -> dict[str, Any]:
        jwk: dict[str, Any] = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(self.private.public_key()))
        return {**jwk, "kid": self.kid, "use": "sig", **({"alg": "ES256"} if self.names_alg else {})}

    def private_pem(self) -> str:
        return self.private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

    def public_pem(self) -> bytes:
        return self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )


class LocalIssuer:
    """``with LocalIssuer() as issuer:`` serves ``issuer.url`` until the block ends."""

    def __init__(self) -> None:
        self.keys = [SigningKey("key-1")]
        self.jwks_fetches = 0
        self.rotations = 0
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/.well-known/oauth-authorization-server":
                    body = {"issuer": issuer.url, "jwks_uri": f"{issuer.url}/jwks.json"}
                elif self.path == "/jwks.json":
                    issuer.jwks_fetches += 1
                    body = {"keys": [key.public_jwk() for key in issuer.keys]}
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}"
        self._thread = threading.Thread(target=self._http.serve_forever, daemon=True)

    def __enter__(self) -> LocalIssuer:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(10)

    def rotate(self) -> SigningKey:
        """A new signing key replaces the old one in the JWKS."""
        self.rotations += 1
        self.keys = [SigningKey(f"key-{self.rotations + 1}")]
        return self.keys[0]

    def mint(
        self,
        audience: str,
        *,
        scope: str = "docs:read",
        lifetime: float = 300,
        issuer: str | None = None,
        key: SigningKey | None = None,
        **claims: Any,
    ) -> str:
        """A signed access token (RFC 9068 shape) for ``audience``."""
        key = key or self.keys[0]
        now = int(time.time())
        payload = {
            "iss": issuer or self.url,
            "aud": audience,
            "sub": "agent-7",
            "client_id": "docs-agent",
            "scope": scope,
            "iat": now,
            "exp": now + int(lifetime),
            **claims,
        }
        return jwt.encode(payload, key.private, algorithm="ES256", headers={"kid": key.kid})
