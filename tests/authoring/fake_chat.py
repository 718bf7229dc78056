"""A small real HTTP server on 127.0.0.1 speaking OpenAI's ``POST /v1/chat/completions`` wire format.

Built like ``tests/embedding/fake_openai.py``: tests script the next answers (``answer_next`` with a
message content, ``fail_next`` with a status and headers) and read every request in ``requests``.
Unscripted requests get a 500, so a test never passes by accident.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

VALID_KEY = "sk-test-chat"


@dataclass
class Scripted:
    status: int
    content: str | None = None
    headers: dict[str, str] = field(default_factory=dict)


class FakeChatServer:
    """Start with ``serve()`` (a context manager); ``base_url`` ends with ``/v1``."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._script: list[Scripted] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @contextmanager
    def serve(self) -> Iterator[FakeChatServer]:
        self._thread.start()
        try:
            yield self
        finally:
            self._server.shutdown()
            self._server.server_close()

    def answer_next(self, content: str) -> None:
        """The next request gets a completion whose message content is ``content``."""
        with self._lock:
            self._script.append(Scripted(200, content))

    def fail_next(self, status: int, count: int = 1, headers: dict[str, str] | None = None) -> None:
        """The next ``count`` requests get ``status`` with an OpenAI-style error body."""
        with self._lock:
            self._script.extend(Scripted(status, None, dict(headers or {})) for _ in range(count))

    def _answer(
        self, path: str, body: dict[str, Any], authorization: str | None
    ) -> tuple[int, dict[str, str], Any]:
        if path.rstrip("/") != "/v1/chat/completions":
            return 404, {}, _error("not found", "invalid_request_error")
        if authorization != f"Bearer {VALID_KEY}":
            return 401, {}, _error("Incorrect API key provided", "invalid_request_error")
        with self._lock:
            scripted = self._script.pop(0) if self._script else Scripted(500, None)
        if scripted.content is None:
            return scripted.status, scripted.headers, _error(f"scripted {scripted.status}", "server_error")
        message = {"role": "assistant", "content": scripted.content, "refusal": None}
        completion = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }
        return 200, {}, completion

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(body)
                status, headers, payload = server._answer(self.path, body, self.headers.get("authorization"))
                data = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in {"content-type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}
