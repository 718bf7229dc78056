"""Stateless signed cursors: round trip, and every way a cursor can be wrong."""

from __future__ import annotations

import base64
import json

import pytest

from docs_mcp.errors import CursorError
from docs_mcp.server.cursor import SECRET_ENV, CursorCodec, cursor_key

KEY = b"k" * 32
FILTERS = {"language": "python"}


def _codec(key: bytes = KEY, identity: str = "index-a") -> CursorCodec:
    return CursorCodec(key, identity)


def _cursor(**overrides: object) -> str:
    args: dict[str, object] = {"offset": 10, "limit": 10, "query": "retries", "filters": FILTERS}
    args.update(overrides)
    return _codec().encode(**args)  # type: ignore[arg-type]


def test_a_cursor_round_trips_its_offset_and_limit() -> None:
    position = _codec().decode(_cursor(offset=20, limit=5), query="retries", filters=FILTERS)
    assert (position.offset, position.limit) == (20, 5)


def test_a_cursor_is_url_safe_and_does_not_reveal_the_query() -> None:
    cursor = _cursor(query="secret words")
    assert set(cursor) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    assert "secret" not in base64.urlsafe_b64decode(cursor.split(".")[0] + "==").decode()


def test_a_tampered_offset_is_rejected_as_altered() -> None:
    payload, signature = _cursor().split(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data["o"] = 1000
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    with pytest.raises(CursorError, match="altered"):
        _codec().decode(f"{forged}.{signature}", query="retries", filters=FILTERS)


@pytest.mark.parametrize("garbage", ["", "abc", "not.base64!!", "....", "eyJ2IjoxfQ.", "ünïcode.x"])
def test_garbage_is_rejected_with_a_cursor_error(garbage: str) -> None:
    with pytest.raises(CursorError, match="without `cursor`"):
        _codec().decode(garbage, query="retries", filters=FILTERS)


def test_a_cursor_signed_with_another_key_is_rejected() -> None:
    foreign = CursorCodec(b"x" * 32, "index-a").encode(offset=10, limit=10, query="retries", filters=FILTERS)
    with pytest.raises(CursorError, match="another server"):
        _codec().decode(foreign, query="retries", filters=FILTERS)


def test_a_cursor_from_another_index_build_is_stale() -> None:
    old = _codec(identity="index-old").encode(offset=10, limit=10, query="retries", filters=FILTERS)
    with pytest.raises(CursorError, match="stale"):
        _codec(identity="index-new").decode(old, query="retries", filters=FILTERS)


@pytest.mark.parametrize(
    ("query", "filters"),
    [
        ("timeouts", FILTERS),
        ("retries", {"language": "go"}),
        ("retries", {}),
        ("retries", {**FILTERS, "x": "y"}),
    ],
)
def test_a_cursor_only_continues_its_own_query_and_filters(query: str, filters: dict[str, str]) -> None:
    with pytest.raises(CursorError, match="different query"):
        _codec().decode(_cursor(), query=query, filters=filters)


def test_the_key_comes_from_the_environment_so_replicas_share_cursors() -> None:
    env = {SECRET_ENV: "shared"}
    one, two = CursorCodec(cursor_key(env), "i"), CursorCodec(cursor_key(env), "i")
    cursor = one.encode(offset=3, limit=3, query="q", filters={})
    assert two.decode(cursor, query="q", filters={}).offset == 3


def test_without_a_secret_each_process_generates_its_own_key() -> None:
    assert cursor_key({}) != cursor_key({})
    assert len(cursor_key({})) == 32
