"""Access control on the real HTTP server: static bearer tokens and OAuth resource-server mode.

One server (a subprocess, the real CLI) takes both a tokens file and a local issuer on 127.0.0.1
(testkit.local_issuer, keys made there); a real MCP client and raw requests try good and bad
tokens. No token or key may show in a response, the server's output or any log record.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import jwt
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from server_support import HttpServer, serve_command, server_env, start_http_server, stop

from docs_mcp.server.auth.gate import AuthGate, AuthOptions
from docs_mcp.server.auth.jwt import JwksKeys, JwtVerifier
from testkit.local_issuer import LocalIssuer, SigningKey

pytestmark = pytest.mark.timeout(60)

AUDIENCE = "https://docs.example.test/mcp"
METADATA_URL = "https://docs.example.test/.well-known/oauth-protected-resource/mcp"
PLAIN_TOKEN = "team-token-" + "a1" * 16
HASHED_TOKEN = "ci-bot-token-" + "b2" * 16
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
SEARCH = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": "refund"}},
    }
).encode()


def _tokens_file(path: Path, *tokens: str, hashed: tuple[str, ...] = ()) -> Path:
    lines = [
        "# docs-mcp tokens",
        *tokens,
        *(f"sha256:{hashlib.sha256(t.encode()).hexdigest()}" for t in hashed),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def issuer() -> Iterator[LocalIssuer]:
    with LocalIssuer() as local:
        yield local


@pytest.fixture(scope="module")
def secured(
    example_index: Path, issuer: LocalIssuer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpServer]:
    tokens = _tokens_file(tmp_path_factory.mktemp("auth") / "tokens", PLAIN_TOKEN, hashed=(HASHED_TOKEN,))
    server = start_http_server(
        example_index,
        *("--auth-tokens", str(tokens), "--auth-issuer", issuer.url, "--auth-audience", AUDIENCE),
        *("--auth-scope", "docs:read"),
    )
    try:
        yield server
    finally:
        stop(server)


def _post(server: HttpServer, token: str | None) -> httpx.Response:
    headers = dict(HEADERS) if token is None else {**HEADERS, "Authorization": f"Bearer {token}"}
    return httpx.post(server.url, content=SEARCH, headers=headers, timeout=30)


def _challenge(response: httpx.Response) -> str:
    return response.headers.get("www-authenticate", "")


def test_healthz_and_other_paths_stay_open(secured: HttpServer) -> None:
    assert httpx.get(f"{secured.base}/healthz").json()["status"] == "ok"


def test_mcp_without_a_token_is_401_with_a_bearer_challenge_naming_the_metadata(secured: HttpServer) -> None:
    response = _post(secured, None)
    assert response.status_code == 401
    assert _challenge(response).startswith("Bearer ")
    assert f'resource_metadata="{METADATA_URL}"' in _challenge(response)
    basic = httpx.post(secured.url, content=SEARCH, headers={**HEADERS, "Authorization": "Basic dTpw"})
    assert basic.status_code == 401


@pytest.mark.parametrize("token", [PLAIN_TOKEN, HASHED_TOKEN], ids=["plain-line", "sha256-line"])
def test_a_listed_static_token_is_accepted(secured: HttpServer, token: str) -> None:
    response = _post(secured, token)
    assert response.status_code == 200
    assert response.json()["result"]["structuredContent"]["hits"]


def test_a_real_mcp_client_with_a_jwt_searches(secured: HttpServer, issuer: LocalIssuer) -> None:
    token = issuer.mint(AUDIENCE)

    async def session() -> list[str]:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        async with http, Client(streamable_http_client(secured.url, http_client=http)) as client:
            page = await client.call_tool("search_docs", {"query": "refund a payment"})
            assert not page.is_error and isinstance(page.structured_content, dict)
            return [hit["chunk_id"] for hit in page.structured_content["hits"]]

    assert anyio.run(session)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unsigned(issuer: LocalIssuer) -> str:
    claims = jwt.decode(issuer.mint(AUDIENCE), options={"verify_signature": False})
    return jwt.encode(claims, None, algorithm="none")  # type: ignore[arg-type]


def _tampered(issuer: LocalIssuer) -> str:
    header, payload, signature = issuer.mint(AUDIENCE, scope="docs:read").split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "admin"
    return f"{header}.{_b64(json.dumps(claims).encode())}.{signature}"


def _hmac_with_the_public_key(issuer: LocalIssuer) -> str:
    """The classic key-confusion forgery: HS256 keyed with the issuer's public key."""
    claims = jwt.decode(issuer.mint(AUDIENCE), options={"verify_signature": False})
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": issuer.keys[0].kid}).encode())
    signing_input = f"{header}.{_b64(json.dumps(claims).encode())}"
    signature = hmac.new(issuer.keys[0].public_pem(), signing_input.encode(), hashlib.sha256).digest()
    return f"{signing_input}.{_b64(signature)}"


def _forged(header: dict[str, Any], issuer: LocalIssuer) -> str:
    """A token with ``header`` over real claims and a signature of random bytes."""
    claims = jwt.decode(issuer.mint(AUDIENCE), options={"verify_signature": False})
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}.{_b64(b'x' * 64)}"


BAD_TOKENS: dict[str, Any] = {
    "expired": lambda i: i.mint(AUDIENCE, lifetime=-120),
    "wrong-audience": lambda i: i.mint("https://other.example.test/mcp"),
    "wrong-issuer": lambda i: i.mint(AUDIENCE, issuer="https://evil.example.test"),
    "unsigned-alg-none": _unsigned,
    "tampered": _tampered,
    "hs256-with-the-public-key": _hmac_with_the_public_key,
    "signed-by-an-unknown-key": lambda i: i.mint(AUDIENCE, key=SigningKey("key-1")),
    "unknown-kid": lambda i: i.mint(AUDIENCE, key=SigningKey("nobody")),
    "not-a-jwt": lambda i: "not.a.jwt",
    "unlisted-static-token": lambda i: "team-token-" + "ff" * 16,
    "alg-a-list": lambda i: _forged({"alg": ["ES256"], "typ": "JWT", "kid": i.keys[0].kid}, i),
    "alg-an-object": lambda i: _forged({"alg": {"ES256": 1}, "kid": i.keys[0].kid}, i),
    "kid-a-list": lambda i: _forged({"alg": "ES256", "kid": [i.keys[0].kid]}, i),
}


@pytest.mark.parametrize("case", list(BAD_TOKENS))
def test_a_bad_token_is_401_invalid_token(secured: HttpServer, issuer: LocalIssuer, case: str) -> None:
    token = BAD_TOKENS[case](issuer)
    response = _post(secured, token)
    assert response.status_code == 401
    assert _challenge(response).startswith("Bearer ")
    assert 'error="invalid_token"' in _challenge(response)
    assert f'resource_metadata="{METADATA_URL}"' in _challenge(response)
    assert token not in response.text and token not in _challenge(response)


def test_a_token_without_the_required_scope_is_403_insufficient_scope(
    secured: HttpServer, issuer: LocalIssuer
) -> None:
    response = _post(secured, issuer.mint(AUDIENCE, scope="profile"))
    assert response.status_code == 403
    assert 'error="insufficient_scope"' in _challenge(response)


@pytest.mark.parametrize(
    "path", ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
)
def test_the_protected_resource_metadata_names_the_issuer(
    secured: HttpServer, issuer: LocalIssuer, path: str
) -> None:
    metadata = httpx.get(f"{secured.base}{path}").json()
    assert metadata["resource"] == AUDIENCE
    assert metadata["authorization_servers"] == [issuer.url]
    assert metadata["scopes_supported"] == ["docs:read"]
    assert metadata["bearer_methods_supported"] == ["header"]


def test_no_token_or_key_reaches_the_server_output(secured: HttpServer, issuer: LocalIssuer) -> None:
    tokens = [PLAIN_TOKEN, HASHED_TOKEN, issuer.mint(AUDIENCE)] + [
        make(issuer) for make in BAD_TOKENS.values()
    ]
    for token in tokens:
        _post(secured, token)
    output = "".join(secured.stderr_lines)
    secrets = [*tokens, *(t.split(".")[-1] for t in tokens if t.count(".") == 2 and len(t) > 20)]
    secrets += [key.private_pem() for key in issuer.keys]
    assert [s for s in secrets if s and s in output] == []


def test_the_tokens_file_is_reread_when_it_changes(example_index: Path, tmp_path: Path) -> None:
    old, new = "old-token-" + "c3" * 12, "new-token-" + "d4" * 12
    tokens = _tokens_file(tmp_path / "tokens", old)
    server = start_http_server(example_index, "--auth-tokens", str(tokens))
    try:
        assert _post(server, old).status_code == 200
        assert _post(server, None).headers["www-authenticate"].startswith("Bearer")
        _tokens_file(tmp_path / "tokens.next", new).replace(tokens)  # how a Secret volume updates it
        deadline = time.monotonic() + 10
        while _post(server, new).status_code != 200:
            assert time.monotonic() < deadline, "the new token was never accepted"
            time.sleep(0.2)
        assert _post(server, old).status_code == 401
        tokens.write_text("zq9x7\n")  # a broken edit (too short) keeps the tokens that worked
        deadline = time.monotonic() + 10  # read once it has settled (two checks a second apart)
        while ":1: a token shorter" not in "".join(server.stderr_lines):
            assert time.monotonic() < deadline, "the broken edit was never reported"
            assert _post(server, new).status_code == 200
            time.sleep(0.2)
        assert _post(server, new).status_code == 200
        output = "".join(server.stderr_lines)
        assert "not reloaded, keeping the previous ones" in output
        assert "zq9x7" not in output and new not in output and old not in output
    finally:
        stop(server)


def test_a_tokens_file_rewritten_in_place_never_locks_a_client_out(
    example_index: Path, tmp_path: Path
) -> None:
    """``fetch-tokens > FILE`` truncates the file and then writes it: while it runs the file is empty
    or ends in part of a token. Every call with a valid token keeps working, a prefix of a token is
    never accepted, and an empty file left behind keeps the tokens that worked."""
    token = "rotated-token-" + "e5" * 12
    tokens = _tokens_file(tmp_path / "tokens", token)
    server = start_http_server(example_index, "--auth-tokens", str(tokens))
    refused: list[int] = []
    stop_calls = threading.Event()

    def call_all_the_time() -> None:
        while not stop_calls.is_set():
            status = _post(server, token).status_code
            if status != 200:
                refused.append(status)

    caller = threading.Thread(target=call_all_the_time)
    caller.start()
    try:
        for _ in range(3):  # a slow writer: each rewrite leaves the file partial for over a second
            with tokens.open("w") as file:
                file.flush()  # truncated: empty
                time.sleep(0.6)
                file.write("# docs-mcp tokens\n" + token[:18])
                file.flush()  # a prefix of the token, 18 characters: long enough to pass as one
                time.sleep(0.6)
                file.write(token[18:] + "\n")
            time.sleep(0.3)
        tokens.write_text("")  # then left empty
        deadline = time.monotonic() + 10
        while "lists no token" not in "".join(server.stderr_lines):
            assert time.monotonic() < deadline, "the empty file was never reported"
            time.sleep(0.2)
        assert _post(server, token).status_code == 200
        assert _post(server, token[:18]).status_code == 401
    finally:
        stop_calls.set()
        caller.join(timeout=30)
        stop(server)
    assert refused == []
    assert token not in "".join(server.stderr_lines)


@pytest.mark.parametrize("algorithm", ["RS256", "PS384", "EdDSA"])
def test_another_familys_algorithm_on_a_key_without_alg_is_401_not_500(
    example_index: Path, algorithm: str
) -> None:
    """A JWKS key may leave out "alg": a token naming that key with another family's algorithm (an
    EC key, RS256) handed PyJWT the wrong kind of key, whose error was an HTTP 500 and a traceback."""
    with LocalIssuer() as issuer:
        issuer.keys = [SigningKey("bare", names_alg=False)]
        server = start_http_server(example_index, "--auth-issuer", issuer.url, "--auth-audience", AUDIENCE)
        try:
            response = _post(server, _forged({"alg": algorithm, "kid": "bare"}, issuer))
            assert response.status_code == 401
            assert 'error="invalid_token"' in _challenge(response)
            assert _post(server, issuer.mint(AUDIENCE)).status_code == 200  # its own tokens still work
        finally:
            stop(server)
        assert "Traceback" not in "".join(server.stderr_lines)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--transport", "http", "--auth-tokens", "{tokens}"], ":3: a token shorter than 16 characters"),
        (["--transport", "http", "--auth-tokens", "{missing}"], "cannot be read"),
        (["--transport", "http", "--auth-issuer", "https://id.example.test"], "go together"),
        (
            ["--transport", "http", "--auth-issuer", "http://id.example.test", "--auth-audience", AUDIENCE],
            "give an https:// URL",
        ),
        (["--auth-tokens", "{tokens}"], "protect --transport http"),
    ],
)
def test_bad_auth_settings_stop_the_start_with_one_line(
    example_index: Path, tmp_path: Path, flags: list[str], message: str
) -> None:
    import subprocess

    tokens = tmp_path / "tokens"
    tokens.write_text(f"# comment\n{PLAIN_TOKEN}\nsecret12\n")
    argv = [f.format(tokens=tokens, missing=tmp_path / "nope") for f in flags]
    result = subprocess.run(
        serve_command(example_index, *argv), capture_output=True, text=True, env=server_env(), timeout=60
    )
    assert result.returncode == 1
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "secret12" not in result.stderr and PLAIN_TOKEN not in result.stderr


@pytest.mark.anyio
async def test_the_key_cache_fetches_once_and_follows_a_rotation(issuer: LocalIssuer) -> None:
    verifier = JwtVerifier(issuer.url, AUDIENCE, JwksKeys(issuer.url, refetch_seconds=0))
    before = issuer.jwks_fetches
    assert await verifier.verify_token(issuer.mint(AUDIENCE)) is not None
    assert await verifier.verify_token(issuer.mint(AUDIENCE)) is not None
    assert issuer.jwks_fetches == before + 1  # cached
    old_key = issuer.keys[0]
    try:
        new_key = issuer.rotate()
        accepted = await verifier.verify_token(issuer.mint(AUDIENCE, key=new_key))
        assert accepted is not None and accepted.subject == "agent-7" and accepted.scopes == ["docs:read"]
        assert await verifier.verify_token(issuer.mint(AUDIENCE, key=old_key)) is None  # withdrawn
    finally:
        issuer.keys = [old_key]


@pytest.mark.anyio
async def test_nothing_secret_is_logged_even_at_debug(
    issuer: LocalIssuer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    options = AuthOptions(
        tokens_file=_tokens_file(tmp_path / "t", PLAIN_TOKEN), issuer=issuer.url, audience=AUDIENCE
    )
    from docs_mcp.server.auth.gate import auth_gate

    gate = auth_gate(app, options, path="/mcp")
    assert isinstance(gate, AuthGate)
    tokens = [PLAIN_TOKEN, issuer.mint(AUDIENCE)] + [make(issuer) for make in BAD_TOKENS.values()]
    caplog.set_level(logging.DEBUG)
    transport = httpx.ASGITransport(app=gate)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        statuses = [
            (await client.post("/mcp", headers={"Authorization": f"Bearer {t}"})).status_code for t in tokens
        ]
    assert statuses[:2] == [200, 200] and set(statuses[2:]) == {401}
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    assert "bearer token refused" in caplog.text  # the reasons are logged ...
    assert [t for t in tokens if t in logged] == []  # ... the tokens never
    assert issuer.keys[0].private_pem() not in logged
