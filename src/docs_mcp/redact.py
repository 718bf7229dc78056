"""Credentials never reach a message: the userinfo of a URL or a reference is redacted wherever one
is printed, in library errors and at the CLI's edge. This is the one function that does it.

Every shape seen in a message: ``http://user:KEY@host/v1``, ``oci://user:KEY@host/repo:tag``,
``user:KEY@host/repo:tag`` (no scheme), and ``https:/user:KEY@host`` (a URL given where a folder
was expected: a path joins its two slashes).
"""

from __future__ import annotations

import re

__all__ = ["redact"]

# scheme:// (or scheme:/) then userinfo: anything up to the first @ before the host's end.
_URL_USERINFO = re.compile(r"(?P<lead>\b[A-Za-z][A-Za-z0-9+.-]{0,31}:/{1,2})[^/?#@\s]*@")
# No scheme: ``user:password@`` opening a word (not ``repo:tag@sha256:...``, a pinned reference,
# and never inside a path or a host: the character before it is no name, path or address character).
_BARE_USERINFO = re.compile(r"(?<![\w.:/@%+-])[^\s/?#@:'\"()\[\]]+:[^\s/?#@'\"]*@(?!sha256:)")


def redact(text: str) -> str:
    """``text`` (a URL, a reference, or a message quoting them) with every userinfo replaced by
    ``***``: ``http://user:KEY@host/v1`` -> ``http://***@host/v1``, ``user:KEY@host/repo`` ->
    ``***@host/repo``. Text without credentials is unchanged."""
    return _BARE_USERINFO.sub("***@", _URL_USERINFO.sub(r"\g<lead>***@", text))
