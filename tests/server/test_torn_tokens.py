"""A tokens file cut at any byte (a writer killed mid-line, a full disk) or holding bytes that are no
text: reading it is the digests of its whole lines or one ConfigError naming the file and line, never
a traceback and never a token shown back."""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

import pytest
from hostile_strategies import examples, torn
from hypothesis import given, settings
from hypothesis import strategies as st

from docs_mcp.errors import ConfigError
from docs_mcp.server.auth.tokens import read_token_digests

TOKENS = ["a" * 40, "sha256:" + "0" * 64, "# a comment", "", "tok\u00e9n-" + "x" * 30, "b" * 64]
WHOLE = ("\n".join(TOKENS) + "\n").encode()


@settings(max_examples=examples(100))
@given(data=st.one_of(torn(st.just(WHOLE)), st.binary(max_size=200)))
def test_a_cut_or_binary_tokens_file_is_read_or_refused_in_one_line(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tokens"
        path.write_bytes(data)
        try:
            digests = read_token_digests(path)
        except ConfigError as refused:
            message = str(refused)
            assert message.startswith(f"--auth-tokens {path}") and "\n" not in message
            assert not any(token in message for token in TOKENS if len(token) > 16)
            return
    lines = [line.strip() for line in data.decode().splitlines()]
    possible = {hashlib.sha256(line.encode()).digest() for line in lines}
    # A line of 64 hex digits is a digest, with or without its sha256: prefix.
    hexes = [line.removeprefix("sha256:") for line in lines]
    possible |= {bytes.fromhex(h) for h in hexes if re.fullmatch(r"[0-9A-Fa-f]{64}", h)}
    assert set(digests) <= possible


def test_a_file_cut_mid_character_is_refused_as_not_text(tmp_path: Path) -> None:
    path = tmp_path / "tokens"
    path.write_bytes(WHOLE[: WHOLE.index("\u00e9".encode()) + 1])
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        read_token_digests(path)
