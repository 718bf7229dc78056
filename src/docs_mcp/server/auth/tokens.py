"""Static bearer tokens from a file: one token, or its SHA-256, per line; reloaded when the file changes.

The file holds secrets, so nothing here ever puts a line of it, or a presented token, into a message:
errors name the file and the line number only. Tokens are kept as their SHA-256 digests and a
presented token is compared, digest to digest, against every one of them with
:func:`hmac.compare_digest` (no early exit, so the time taken says nothing about which one came close).

Format: blank lines and lines starting with ``#`` are skipped; ``sha256:<64 hex>`` or a bare 64-hex
line is a digest (``printf %s "$TOKEN" | sha256sum``); any other line is a token itself, at least
:data:`MIN_TOKEN_LENGTH` characters long.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.errors import ConfigError

__all__ = ["MIN_TOKEN_LENGTH", "TokenFile", "read_token_digests"]

MIN_TOKEN_LENGTH = 16
_DIGEST = re.compile(r"(?:sha256:)?([0-9A-Fa-f]{64})")
_STAT_EVERY_SECONDS = 1.0  # how stale a revoked token may be; one stat() a second at most
_log = logging.getLogger(__name__)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def read_token_digests(path: Path) -> list[bytes]:
    """The SHA-256 digests of the tokens ``path`` lists.

    Raises:
        ConfigError: the file cannot be read, or a line is neither a digest nor a long enough token
            (named by its line number, never shown).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else "not UTF-8 text"
        raise ConfigError(f"--auth-tokens {path}: cannot be read ({reason})") from None
    digests: list[bytes] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _DIGEST.fullmatch(line)
        if match is not None:
            digests.append(bytes.fromhex(match[1]))
        elif line.lower().startswith("sha256:"):
            raise ConfigError(f"--auth-tokens {path}:{number}: a sha256: line needs 64 hex digits")
        elif len(line) < MIN_TOKEN_LENGTH:
            raise ConfigError(
                f"--auth-tokens {path}:{number}: a token shorter than {MIN_TOKEN_LENGTH} characters; "
                "use a long random one (openssl rand -hex 32)"
            )
        else:
            digests.append(_digest(line))
    return digests


@dataclass(frozen=True)
class _Snapshot:
    stamp: tuple[int, int, int]  # (inode, size, mtime_ns): any edit or replacement changes it
    digests: tuple[bytes, ...]


def _stamp(path: Path) -> tuple[int, int, int]:
    stat = os.stat(path)
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


class TokenFile:
    """The tokens of a file, reread when it changes (checked at most once a second). A file that
    becomes unreadable, malformed or empty keeps the last good tokens and logs why (file and line
    only).

    A change is read only once it has settled: the same (inode, size, mtime) at two checks a second
    apart. A file rewritten in place (``fetch-tokens > FILE`` truncates it, then writes) is empty or
    ends in part of a line while its writer runs; reading it then would lock every client out, or
    install a prefix of a token. Until the new content settles the previous tokens stay in force.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        stamp = _stamp_or_raise(path)
        digests = read_token_digests(path)
        if not digests:
            raise ConfigError(f"--auth-tokens {path}: lists no token; add one per line")
        self._snapshot = _Snapshot(stamp, tuple(digests))
        self._checked = time.monotonic()
        self._lock = threading.Lock()
        self._changing: tuple[int, int, int] | None = None  # a stamp seen once, not yet settled
        self._refused: tuple[int, int, int] | None = None  # a settled stamp whose content was refused

    def accepts(self, token: str) -> bool:
        """True when ``token`` is one of the file's tokens (constant time in the token's content)."""
        presented = _digest(token)
        matched = False
        for digest in self._current().digests:
            matched |= hmac.compare_digest(presented, digest)
        return matched

    def _current(self) -> _Snapshot:
        now = time.monotonic()
        if now - self._checked < _STAT_EVERY_SECONDS:
            return self._snapshot
        with self._lock:
            if now - self._checked >= _STAT_EVERY_SECONDS:
                self._checked = now
                self._reload_if_changed()
        return self._snapshot

    def _reload_if_changed(self) -> None:
        try:
            stamp = _stamp(self.path)
            if stamp in (self._snapshot.stamp, self._refused):
                self._changing = None
                return
            if stamp != self._changing:
                self._changing = stamp  # still being written, perhaps: read it at the next check
                return
            digests = read_token_digests(self.path)
            if _stamp(self.path) != stamp:  # written again while being read
                return
            if not digests:
                raise ConfigError(f"--auth-tokens {self.path}: lists no token")
        except (OSError, ConfigError) as error:
            reason = error.strerror if isinstance(error, OSError) else str(error)
            _log.warning("auth tokens not reloaded, keeping the previous ones: %s", reason)
            self._refused = self._changing
            return
        self._snapshot = _Snapshot(stamp, tuple(digests))
        self._changing = None
        _log.warning("auth tokens reloaded from %s: %d token(s)", self.path, len(digests))


def _stamp_or_raise(path: Path) -> tuple[int, int, int]:
    try:
        return _stamp(path)
    except OSError as error:
        raise ConfigError(f"--auth-tokens {path}: cannot be read ({error.strerror})") from None
