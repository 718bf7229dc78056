"""Credentials never reach a message: the userinfo of a URL (``http://user:KEY@host/v1``) is redacted
wherever a URL is printed, in library errors and at the CLI's edge."""

from __future__ import annotations

import re

__all__ = ["redact"]

# scheme://userinfo@ : the userinfo is anything up to the first @ before the host's end.
_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,31}://)[^/?#@\s]*@")


def redact(text: str) -> str:
    """``text`` (a URL, or a message quoting URLs) with every URL's userinfo replaced by ``***``:
    ``http://user:KEY@host/v1`` -> ``http://***@host/v1``. Text without credentials is unchanged."""
    return _USERINFO.sub(r"\g<scheme>***@", text)
