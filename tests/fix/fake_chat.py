"""The fake OpenAI server of the embedding tests (``tests/embedding/fake_openai.py``: a real HTTP
server on 127.0.0.1, scripted failures, recorded requests) taught ``POST /v1/chat/completions``.

``answer_next(content)`` scripts the message content of the next completion; ``fail_next`` (from the
base) scripts errors with their headers. An unscripted request gets a 500, so no test passes by
accident.
"""

from __future__ import annotations

from typing import Any

from embedding.fake_openai import VALID_KEY, FakeOpenAIServer, Recorded, Scripted, _error

__all__ = ["VALID_KEY", "FakeChatServer"]


class FakeChatServer(FakeOpenAIServer):
    def answer_next(self, content: str) -> None:
        """The next request gets a completion whose message content is ``content``."""
        with self._lock:
            self._script.append(Scripted(200, {}, {"content": content}))

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of the requests received, in order."""
        return [request.body for request in self.requests]

    def _answer(
        self, path: str, body: dict[str, Any], inputs: list[str], record: Recorded
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        if path.rstrip("/") != "/v1/chat/completions":
            return super()._answer(path, body, inputs, record)
        if record.authorization != f"Bearer {VALID_KEY}":
            return 401, {}, _error("Incorrect API key provided", "invalid_request_error", "invalid_api_key")
        scripted = self._next_scripted()
        if not isinstance(scripted, Scripted) or scripted.body is None:
            status = scripted.status if isinstance(scripted, Scripted) else 500
            return (
                status,
                scripted.headers if isinstance(scripted, Scripted) else {},
                _error("scripted", "server_error"),
            )
        message = {"role": "assistant", "content": scripted.body["content"], "refusal": None}
        return (
            200,
            {},
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model"),
                "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            },
        )
