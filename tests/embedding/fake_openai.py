"""A small real HTTP server on 127.0.0.1 speaking OpenAI's ``POST /v1/embeddings`` wire format.

It answers with deterministic vectors (derived from each input's text), lists the items of a
response in shuffled order with their ``index`` fields, checks the bearer key, and rejects inputs
over the token limit like the real API. Tests script failures for the next requests with
``fail_next`` (a status, headers, a count) and ``hang_next`` (requests that never answer until the
server stops or ``release`` is called). Every request is recorded in ``requests``.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VALID_KEY = "sk-test-valid"
TOKEN_LIMIT = 8192


def fake_vector(text: str, dimensions: int) -> list[float]:
    """The vector the server returns for ``text``: deterministic, a function of the text only."""
    digest = hashlib.sha256(text.encode()).digest()
    raw = [digest[i % len(digest)] / 255.0 - 0.5 + i * 1e-3 for i in range(dimensions)]
    norm = sum(v * v for v in raw) ** 0.5
    return [v / norm for v in raw]


@dataclass
class Scripted:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None


@dataclass
class Recorded:
    inputs: list[str]
    body: dict[str, Any]
    authorization: str | None
    status: int = 0


class FakeOpenAIServer:
    """Start with ``serve()`` (a context manager); ``base_url`` ends with ``/v1``."""

    def __init__(self, default_dimensions: int = 3072) -> None:
        self.default_dimensions = default_dimensions
        self.requests: list[Recorded] = []
        self._script: list[Scripted | str] = []
        self._lock = threading.Lock()
        self._released = threading.Event()
        self._hung = threading.Semaphore(0)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @contextmanager
    def serve(self) -> Iterator[FakeOpenAIServer]:
        self._thread.start()
        try:
            yield self
        finally:
            self.release()
            self._server.shutdown()
            self._server.server_close()

    def fail_next(self, status: int, count: int = 1, headers: dict[str, str] | None = None) -> None:
        """The next ``count`` requests get ``status`` with an OpenAI-style error body."""
        with self._lock:
            self._script.extend(Scripted(status, dict(headers or {})) for _ in range(count))

    def hang_next(self, count: int = 1) -> None:
        """The next ``count`` requests never answer (until ``release`` or shutdown)."""
        with self._lock:
            self._script.extend("hang" for _ in range(count))

    def wait_for_hung_request(self, timeout: float = 10.0) -> bool:
        """True once a request has started hanging."""
        return self._hung.acquire(timeout=timeout)

    def release(self) -> None:
        self._released.set()

    def _next_scripted(self) -> Scripted | str | None:
        with self._lock:
            return self._script.pop(0) if self._script else None

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                inputs = body.get("input")
                inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
                record = Recorded(inputs, body, self.headers.get("authorization"))
                with server._lock:
                    server.requests.append(record)
                status, headers, payload = server._answer(self.path, body, inputs, record)
                if status == -1:  # hang: hold the connection open, answer nothing
                    server._hung.release()
                    server._released.wait(timeout=30)
                    return
                record.status = status
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def _answer(
        self, path: str, body: dict[str, Any], inputs: list[str], record: Recorded
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        if path.rstrip("/") != "/v1/embeddings":
            return 404, {}, _error("not found", "invalid_request_error")
        if record.authorization != f"Bearer {VALID_KEY}":
            return 401, {}, _error("Incorrect API key provided", "invalid_request_error", "invalid_api_key")
        scripted = self._next_scripted()
        if scripted == "hang":
            return -1, {}, {}
        if isinstance(scripted, Scripted):
            return scripted.status, scripted.headers, _error(f"scripted {scripted.status}", "server_error")
        for text in inputs:
            if not text:
                return 400, {}, _error("'$.input' is invalid: empty string", "invalid_request_error")
            if len(text) / 4 > TOKEN_LIMIT:
                return (
                    400,
                    {},
                    _error(
                        f"This model's maximum context length is {TOKEN_LIMIT} tokens",
                        "invalid_request_error",
                    ),
                )
        dimensions = int(body.get("dimensions", self.default_dimensions))
        items = [
            {"object": "embedding", "index": i, "embedding": fake_vector(text, dimensions)}
            for i, text in enumerate(inputs)
        ]
        random.Random(len(self.requests)).shuffle(items)
        tokens = sum(len(text) // 4 + 1 for text in inputs)
        return (
            200,
            {},
            {
                "object": "list",
                "data": items,
                "model": body.get("model"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


def _error(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
