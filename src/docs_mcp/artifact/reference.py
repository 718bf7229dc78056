"""OCI references: ``[oci://]REGISTRY/REPOSITORY[:TAG][@sha256:DIGEST]``, parsed once at the edge.

The registry host is required (``ghcr.io/acme/docs-index:v1``, ``127.0.0.1:5000/docs:latest``): an
index has no sensible default registry, and guessing Docker Hub would send credentials to the wrong
place. A reference with neither tag nor digest means the tag ``latest``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from docs_mcp.errors import ConfigError
from docs_mcp.loopback import is_loopback
from docs_mcp.redact import redact

__all__ = ["DEFAULT_TAG", "OCI_SCHEME", "Reference", "check_tag", "is_oci_reference", "parse_reference"]

OCI_SCHEME = "oci://"
DEFAULT_TAG = "latest"
# The distribution spec's grammar (repository path components, tags, sha256 digests).
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REPOSITORY = re.compile(rf"{_COMPONENT}(?:/{_COMPONENT})*")
_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
_DIGEST = re.compile(r"sha256:[a-f0-9]{64}")
_HOST = re.compile(r"(?:\[[0-9A-Fa-f:]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::[0-9]{1,5})?")
_EXAMPLE = "e.g. ghcr.io/acme/docs-index:v1 or 127.0.0.1:5000/docs-index@sha256:..."


@dataclass(frozen=True)
class Reference:
    """A parsed reference. ``tag`` and ``digest`` may both be set (``repo:tag@sha256:...``): the
    digest then decides what is fetched."""

    registry: str  # host[:port]
    repository: str
    tag: str | None = None
    digest: str | None = None

    def __str__(self) -> str:
        text = f"{self.registry}/{self.repository}"
        if self.tag:
            text += f":{self.tag}"
        if self.digest:
            text += f"@{self.digest}"
        return text

    @property
    def target(self) -> str:
        """What the manifest endpoint is asked for: the digest when pinned, else the tag."""
        return self.digest or self.tag or DEFAULT_TAG

    @property
    def is_loopback(self) -> bool:
        """Whether the registry is on this machine (plain HTTP is allowed without ``--insecure``)."""
        host = self.registry.rsplit(":", 1)[0] if not self.registry.endswith("]") else self.registry
        return is_loopback(host)

    def pinned(self, digest: str) -> Reference:
        """This reference with ``digest`` (the tag kept for readers): ``REF@sha256:...``."""
        return replace(self, digest=digest)

    def with_tag(self, tag: str) -> Reference:
        """The same repository at ``tag``, without a digest."""
        return replace(self, tag=check_tag(tag), digest=None)


def check_tag(tag: str) -> str:
    """``tag`` when it is a valid OCI tag. Raises ``ConfigError`` otherwise."""
    if not _TAG.fullmatch(tag):
        raise ConfigError(
            f"{tag!r} is not a valid tag: use up to 128 letters, digits, '_', '.' and '-', "
            "not starting with '.' or '-'"
        )
    return tag


def parse_reference(text: str) -> Reference:
    """Parse ``[oci://]REGISTRY/REPOSITORY[:TAG][@sha256:DIGEST]``.

    Raises ``ConfigError`` naming the part that is wrong and showing the expected shape.
    """
    raw = text.strip()
    body = raw[len(OCI_SCHEME) :] if raw.startswith(OCI_SCHEME) else raw
    shown = redact(text)  # the reference as every message quotes it: never its credentials
    if "@" in body.split("/", 1)[0]:
        without = ("oci://" if raw.startswith(OCI_SCHEME) else "") + "***@" + body.split("@", 1)[1]
        raise ConfigError(
            f"{without!r}: a reference holds no credentials; give them with --username and "
            "--password-stdin, DOCS_MCP_REGISTRY_USERNAME/DOCS_MCP_REGISTRY_PASSWORD or docker login"
        )
    name, at, digest = body.partition("@")
    if at and not _DIGEST.fullmatch(digest):
        raise ConfigError(f"{shown!r}: the digest must be sha256: followed by 64 lower-case hex digits")
    registry, slash, path = name.partition("/")
    if not slash or not path or not _looks_like_host(registry):
        raise ConfigError(
            f"{shown!r} does not name a registry host; write REGISTRY/REPOSITORY[:TAG] ({_EXAMPLE})"
        )
    repository, colon, tag = path.rpartition(":") if ":" in path.rsplit("/", 1)[-1] else (path, "", "")
    if not _REPOSITORY.fullmatch(repository):
        raise ConfigError(
            f"{shown!r}: repository {repository!r} must be lower-case letters, digits and separators "
            f"('.', '_', '-', '/') ({_EXAMPLE})"
        )
    if colon:
        check_tag(tag)
    return Reference(
        registry=registry,
        repository=repository,
        tag=tag if colon else (None if at else DEFAULT_TAG),
        digest=digest if at else None,
    )


def is_oci_reference(text: str) -> bool:
    """Whether ``text`` is written as an OCI reference (``oci://...``) rather than a folder path."""
    return text.strip().startswith(OCI_SCHEME)


def _looks_like_host(part: str) -> bool:
    # Like Docker: a first component is a host when it has a dot or a port, or is localhost.
    return bool(_HOST.fullmatch(part)) and ("." in part or ":" in part or part == "localhost")
