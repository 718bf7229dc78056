"""A model API on 127.0.0.1 for tests and offline runs of ``docs-mcp agent-eval``: it speaks the
OpenAI chat-completions wire format (``/v1/chat/completions``, ``/v1/models``) and Anthropic's
Messages format (``/v1/messages``, ``/v1/models/{id}``) and plays model turns chosen by a *player*
(``testkit.model_players``) from what the request holds: the prompt, the tools offered, the tool
results so far. No model can be reached from the machines this project is built on; this is the
remote API's stand-in, with its real wire formats, status codes and ``Retry-After`` headers.

    python -m testkit.model_wire --port 8765 --player reader   # the docs-reading player, for the suite
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

__all__ = ["Fail", "Player", "Reply", "Seen", "WireServer", "model_wire"]


@dataclass(frozen=True)
class Seen:
    """What a model sees in one request, in neither wire format."""

    model: str
    system: str
    prompt: str
    tools: dict[str, dict[str, Any]]  # name -> JSON Schema of its arguments
    turns: int  # assistant turns already in the conversation
    results: list[tuple[str, str, bool]]  # every tool result so far: (tool name, text, is_error)
    last: list[tuple[str, str, bool]]  # the results answering the latest turn


@dataclass(frozen=True)
class Reply:
    """A model turn: text, and tool calls as (name, arguments: a dict, or a raw string as sent)."""

    text: str = ""
    calls: list[tuple[str, dict[str, Any] | str]] = field(default_factory=list)


@dataclass(frozen=True)
class Fail:
    """An HTTP error instead of a turn (429, 5xx), with a ``Retry-After`` in seconds if given."""

    status: int
    retry_after: float | None = None


class Player(Protocol):
    def play(self, seen: Seen) -> Reply | Fail: ...


class WireServer(ThreadingHTTPServer):
    """The server: ``player`` decides every turn; ``log`` holds (path, status) of every request."""

    daemon_threads = True

    def __init__(self, player: Player, models: tuple[str, ...], key: str | None, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.player, self.models, self.key = player, models, key
        self.log: list[tuple[str, int]] = []
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@contextmanager
def model_wire(
    player: Player, models: tuple[str, ...] = ("scripted",), key: str | None = None
) -> Iterator[WireServer]:
    """A running wire server (stopped on exit)."""
    server = WireServer(player, models, key)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _Handler(BaseHTTPRequestHandler):
    server: WireServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the log list records requests
        pass

    def do_GET(self) -> None:
        if not self._authorised():
            return
        path = self.path.rstrip("/")
        if path == "/v1/models":
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "wire"} for m in self.server.models
            ]
            self._send(200, {"object": "list", "data": data})
        elif path.startswith("/v1/models/") and path.removeprefix("/v1/models/") in self.server.models:
            self._send(200, {"type": "model", "id": path.removeprefix("/v1/models/"), "display_name": "wire"})
        else:
            self._send(404, _error("not_found_error", f"no such model or path: {path}"))

    def do_POST(self) -> None:
        if not self._authorised():
            return
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
        anthropic = self.path.rstrip("/") == "/v1/messages"
        if not anthropic and self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, _error("not_found_error", f"no such path: {self.path}"))
            return
        if body.get("model") not in self.server.models:
            self._send(404, _error("not_found_error", f"model {body.get('model')!r} not found"))
            return
        seen = _seen_messages(body) if anthropic else _seen_chat(body)
        outcome = self.server.player.play(seen)
        if isinstance(outcome, Fail):
            headers = {} if outcome.retry_after is None else {"retry-after": f"{outcome.retry_after:g}"}
            self._send(outcome.status, _error("rate_limit_error", "scripted failure"), headers)
            return
        used = (len(json.dumps(body)) // 4, len(json.dumps([outcome.text, outcome.calls])) // 4)
        self._send(
            200,
            _as_message(outcome, body, used, seen.turns)
            if anthropic
            else _as_chat(outcome, body, used, seen.turns),
        )

    def _authorised(self) -> bool:
        key = self.server.key
        given = self.headers.get("x-api-key") or self.headers.get("authorization", "").removeprefix("Bearer ")
        if key is None or given == key:
            return True
        self._send(401, _error("authentication_error", "invalid x-api-key"))
        return False

    def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        with self.server.lock:
            self.server.log.append((self.path, status))
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _error(kind: str, message: str) -> dict[str, Any]:
    # Both vendors' shapes in one body: OpenAI reads error.message, Anthropic type + error.type.
    return {"type": "error", "error": {"type": kind, "message": message, "code": kind}}


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content or [] if isinstance(part, dict))


def _seen_chat(body: dict[str, Any]) -> Seen:
    messages = body.get("messages", [])
    names: dict[str, str] = {}
    results: list[tuple[str, str, bool]] = []
    last: list[tuple[str, str, bool]] = []
    for message in messages:
        if message["role"] == "assistant":
            last = []
            for call in message.get("tool_calls") or []:
                names[call["id"]] = call["function"]["name"]
        elif message["role"] == "tool":
            entry = (names.get(message["tool_call_id"], "?"), _text_of(message["content"]), False)
            results.append(entry)
            last.append(entry)
    return Seen(
        model=body["model"],
        system=next((_text_of(m["content"]) for m in messages if m["role"] == "system"), ""),
        prompt=next((_text_of(m["content"]) for m in messages if m["role"] == "user"), ""),
        tools={t["function"]["name"]: t["function"].get("parameters", {}) for t in body.get("tools", [])},
        turns=sum(1 for m in messages if m["role"] == "assistant"),
        results=results,
        last=last,
    )


def _seen_messages(body: dict[str, Any]) -> Seen:
    messages = body.get("messages", [])
    names: dict[str, str] = {}
    results: list[tuple[str, str, bool]] = []
    last: list[tuple[str, str, bool]] = []
    for message in messages:
        blocks = message["content"] if isinstance(message["content"], list) else []
        if message["role"] == "assistant":
            last = []
            names.update({b["id"]: b["name"] for b in blocks if b.get("type") == "tool_use"})
        for block in blocks:
            if block.get("type") == "tool_result":
                entry = (
                    names.get(block["tool_use_id"], "?"),
                    _text_of(block["content"]),
                    bool(block.get("is_error")),
                )
                results.append(entry)
                last.append(entry)
    first = messages[0]["content"] if messages else ""
    return Seen(
        model=body["model"],
        system=str(body.get("system", "")),
        prompt=_text_of(first),
        tools={t["name"]: t.get("input_schema", {}) for t in body.get("tools", [])},
        turns=sum(1 for m in messages if m["role"] == "assistant"),
        results=results,
        last=last,
    )


def _as_chat(reply: Reply, body: dict[str, Any], used: tuple[int, int], turn: int) -> dict[str, Any]:
    calls = [
        {
            "id": f"call_{turn}_{n}",
            "type": "function",
            "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
        }
        for n, (name, args) in enumerate(reply.calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if calls:
        message["tool_calls"] = calls
    return {
        "id": f"chatcmpl-{turn}",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": used[0], "completion_tokens": used[1], "total_tokens": sum(used)},
    }


def _as_message(reply: Reply, body: dict[str, Any], used: tuple[int, int], turn: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    content += [
        {"type": "tool_use", "id": f"toolu_{turn}_{n}", "name": name, "input": args}
        for n, (name, args) in enumerate(reply.calls)
    ]
    return {
        "id": f"msg_{turn}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": "tool_use" if reply.calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": used[0], "output_tokens": used[1]},
    }


def main() -> None:
    from testkit.model_players import DocsReader

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--player", choices=("reader",), default="reader")
    parser.add_argument("--model", default="docs-reader")
    args = parser.parse_args()
    server = WireServer(DocsReader(), (args.model,), None, args.port)
    print(f"model wire: {server.base_url} (model {args.model}, OpenAI and Anthropic formats)", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
