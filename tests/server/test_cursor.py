"""Stateless signed cursors: they carry their search, and every way a cursor can be wrong is refused."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_mcp.errors import CursorError
from docs_mcp.search.types import OFFSET_MAX
from docs_mcp.server.tools.cursor import (
    CURSOR_MAX_LENGTH,
    RESOURCES,
    SEARCH,
    SECRET_ENV,
    CursorCodec,
    SearchCursor,
    cursor_key,
)

KEY = b"k" * 32
FILTERS = {"language": "python"}


def _codec(key: bytes = KEY, identity: str = "index-a") -> CursorCodec:
    return CursorCodec(key, identity)


def _cursor(**overrides: object) -> str:
    args: dict[str, object] = {"offset": 10, "limit": 10, "query": "retries", "filters": FILTERS}
    args.update(overrides)
    return _codec().encode(**args)  # type: ignore[arg-type]


def _signed(**fields: object) -> str:
    """A cursor our key signed, with any fields at all (what a bug or a leaked key could produce)."""
    good = {"q": "retries", "f": FILTERS, "m": None, "o": 10, "l": 10}
    return _codec().seal(SEARCH, {**good, **fields})


def test_a_cursor_carries_its_whole_search() -> None:
    cursor = _codec().decode(_cursor(offset=20, limit=5, mode="fulltext"))
    assert cursor == SearchCursor("retries", FILTERS, "fulltext", 20, 5)
    assert cursor.matches("retries", FILTERS)
    assert not cursor.matches("timeouts", FILTERS)
    assert not cursor.matches("retries", {})


def test_a_cursor_is_url_safe_and_unpadded() -> None:
    cursor = _cursor(query="ünïcode query with spaces & symbols?")
    assert set(cursor) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")
    assert _codec().decode(cursor).query == "ünïcode query with spaces & symbols?"


def test_a_tampered_offset_is_rejected_as_altered() -> None:
    payload, signature = _cursor().split(".")
    data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    data["o"] = 1000
    forged = base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()
    with pytest.raises(CursorError, match="altered"):
        _codec().decode(f"{forged}.{signature}")


@pytest.mark.parametrize("garbage", ["", "abc", "not.base64!!", "....", "eyJ2IjoxfQ.", "ünïcode.x", "a.b.c"])
def test_garbage_is_rejected_with_a_cursor_error(garbage: str) -> None:
    with pytest.raises(CursorError, match="without `cursor`"):
        _codec().decode(garbage)


def _variants(cursor: str) -> dict[str, str]:
    """What fuzzing found accepted by a lenient decoder: each must be refused."""
    payload, signature = cursor.split(".")
    standard = base64.b64encode(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))).decode()
    last = signature[-1]
    # The last character of a 16-byte tag carries 4 unused bits: flipping one keeps the bytes.
    stray = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    sibling = stray[stray.index(last) ^ 1]
    return {
        "padding": f"{payload}==.{signature}",
        "padded signature": f"{payload}.{signature}==",
        "junk character": f"{payload}.{signature[:3]}*{signature[3:]}",
        "whitespace": f"{payload}.{signature} ",
        "standard alphabet": f"{standard}.{signature}",
        "stray bits": f"{payload}.{signature[:-1]}{sibling}",
    }


@pytest.mark.parametrize("kind", list(_variants(_cursor())))
def test_only_the_canonical_encoding_is_accepted(kind: str) -> None:
    variant = _variants(_cursor())[kind]
    assert variant != _cursor()
    with pytest.raises(CursorError):
        _codec().decode(variant)


@pytest.mark.parametrize(
    "fields",
    [
        {"o": True},
        {"o": 2**63},
        {"o": -1},
        {"o": OFFSET_MAX + 1},
        {"o": 1.5},
        {"l": 0},
        {"l": 51},
        {"l": "10"},
        {"m": "bogus"},
        {"q": ""},
        {"q": "x" * 1001},
        {"q": 7},
        {"f": ["language", "python"]},
        {"f": {"language": 3}},
    ],
)
def test_signed_fields_of_the_wrong_type_or_range_are_refused(fields: dict[str, object]) -> None:
    with pytest.raises(CursorError, match="malformed"):
        _codec().decode(_signed(**fields))


def test_a_cursor_of_another_kind_is_refused() -> None:
    with pytest.raises(CursorError, match="not a search cursor"):
        _codec().decode(_codec().seal(RESOURCES, {"o": 100}))
    with pytest.raises(CursorError, match="not a resources cursor"):
        _codec().offset_of(_cursor(), RESOURCES)


def test_a_cursor_over_the_size_cap_is_refused_before_decoding() -> None:
    with pytest.raises(CursorError, match=f"longer than {CURSOR_MAX_LENGTH}"):
        _codec().decode("A" * (CURSOR_MAX_LENGTH + 1) + ".AAAA")


def test_a_search_too_big_to_carry_is_bound_by_digest_and_must_be_repeated() -> None:
    filters = {"language": "x" * CURSOR_MAX_LENGTH}
    cursor = _codec().decode(_cursor(filters=filters))
    assert len(_cursor(filters=filters)) <= CURSOR_MAX_LENGTH
    assert cursor.query is None and cursor.offset == 10
    assert cursor.matches("retries", filters)
    assert not cursor.matches("retries", FILTERS)


def test_a_cursor_signed_with_another_key_is_rejected() -> None:
    foreign = CursorCodec(b"x" * 32, "index-a").encode(offset=10, limit=10, query="retries", filters=FILTERS)
    with pytest.raises(CursorError, match="another server"):
        _codec().decode(foreign)


def test_a_cursor_from_another_index_build_is_stale() -> None:
    old = _codec(identity="index-old").encode(offset=10, limit=10, query="retries", filters=FILTERS)
    with pytest.raises(CursorError, match="stale"):
        _codec(identity="index-new").decode(old)


def test_a_cursor_of_an_older_server_version_is_refused() -> None:
    payload = json.dumps({"v": 1, "o": 10, "l": 10, "r": "0" * 16, "i": "x"}).encode()
    codec = _codec()
    tag = base64.urlsafe_b64encode(codec._sign(payload)).rstrip(b"=").decode()
    body = base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
    with pytest.raises(CursorError, match="incompatible server version"):
        codec.decode(f"{body}.{tag}")


@given(st.text(max_size=300))
def test_any_text_is_a_cursor_error_or_a_valid_cursor_never_a_crash(text: str) -> None:
    try:
        cursor = _codec().decode(text)
    except CursorError:
        return
    assert isinstance(cursor, SearchCursor)  # pragma: no cover - forging a tag is not expected


def test_the_key_comes_from_the_environment_so_replicas_share_cursors() -> None:
    env = {SECRET_ENV: "shared"}
    one, two = CursorCodec(cursor_key(env), "i"), CursorCodec(cursor_key(env), "i")
    cursor = one.encode(offset=3, limit=3, query="q", filters={})
    assert two.decode(cursor).offset == 3


def test_without_a_secret_each_process_generates_its_own_key() -> None:
    assert cursor_key({}) != cursor_key({})
    assert len(cursor_key({})) == 32
