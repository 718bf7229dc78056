"""The one exception hierarchy of docs-mcp.

    DocsMcpError                  base: a message saying what was wrong and what to do
    ├── ConfigError               a bad option, flag or configuration value
    │   └── MissingExtra          a feature needs an optional extra that is not installed
    ├── ValidationFailed          the docs did not validate; carries the findings
    ├── IndexUnavailable               the index is missing, corrupt, or of an unsupported format
    │   └── IndexCompatibilityError  index built with another provider/model/dimensions or format
    ├── EmbeddingError            an embedding provider failed (auth, network, bad response)
    ├── ModelError                a chat model's API failed for good (agent-eval: after retries)
    ├── QueryError                a search or get request is invalid (bad filter, unknown chunk id)
    │   └── ChunkNotFound         get of an id the index does not hold
    ├── CursorError               a pagination cursor is tampered, foreign or stale
    └── RegistryError             talking to an OCI registry failed (publish, pull, serve oci://)
        ├── RegistryUnreachable       no connection, TLS failure, timeout, or a server error
        ├── RegistryUnauthorized      the registry refused the credentials tried (named, never shown)
        ├── ReferenceNotFound         no such repository, tag or digest
        └── ArtifactRejected          not a docs-mcp index artifact, or an unsafe or corrupt one
            └── DigestMismatch        a blob's bytes do not match the digest or size that names them

``Finding`` is one problem found in the docs, the record ``ValidationFailed`` carries.

The CLI turns these into exit codes; the server turns them into tool errors. Library code raises,
it never exits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One problem found in the docs: ``path:line: severity: message [rule]``."""

    path: str
    line: int  # 1-based; 0 when the finding concerns the whole file
    severity: Severity
    message: str
    rule: str

    def format(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity}: {self.message} [{self.rule}]"

    def to_dict(self) -> dict[str, str | int]:
        """The finding as JSON-ready data."""
        return {
            "path": self.path,
            "line": self.line,
            "severity": self.severity,
            "message": self.message,
            "rule": self.rule,
        }


class DocsMcpError(Exception):
    """Base class for every error docs-mcp raises on purpose.

    Each one pickles whole (the ones with fields of their own say how)."""


class ConfigError(DocsMcpError):
    """A bad option, flag or configuration value."""


class UsageError(ConfigError):
    """A flag or setting whose value cannot work (a host that is no address, a cache folder that is a
    file): bad usage, exit code 2."""


class NoSpace(DocsMcpError):
    """A disk has too little free space for what is to be written there (nothing was replaced)."""


class MissingExtra(ConfigError):
    """A feature needs packages of an optional extra that is not installed; ``extra`` names it
    (``pip install 'docs-mcp-index[EXTRA]'``)."""

    def __init__(self, message: str, extra: str) -> None:
        super().__init__(message)
        self.extra = extra

    def __reduce__(self) -> tuple[Any, ...]:  # pickled whole (see DocsMcpError)
        return type(self), (str(self), self.extra)


class ValidationFailed(DocsMcpError):
    """The documentation did not validate; ``findings`` holds every error and warning."""

    def __init__(self, message: str, findings: Sequence[Finding]) -> None:
        super().__init__(message)
        self.findings = list(findings)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled whole (see DocsMcpError)
        return type(self), (str(self), self.findings)


class IndexUnavailable(DocsMcpError):
    """The index is missing, corrupt or unreadable."""


class IndexCompatibilityError(IndexUnavailable):
    """The index was built with another format, provider, model or dimensions."""


class EmbeddingError(DocsMcpError):
    """An embedding provider failed: authentication, network, or a bad response."""


class ModelError(DocsMcpError):
    """A chat model's API failed for good (``agent-eval``: refused, or still failing after retries)."""


class QueryError(DocsMcpError):
    """A search or get request is invalid."""


class ChunkNotFound(QueryError):
    """``get`` asked for a chunk id the index does not hold."""

    def __init__(self, message: str, chunk_id: str, close_ids: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.chunk_id = chunk_id
        self.close_ids = list(close_ids)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled whole (see DocsMcpError)
        return type(self), (str(self), self.chunk_id, self.close_ids)


class CursorError(DocsMcpError):
    """A pagination cursor is tampered with, from another index or query, or stale."""


class RegistryError(DocsMcpError):
    """Talking to an OCI registry failed."""


class RegistryUnreachable(RegistryError):
    """The registry could not be reached: connection refused, DNS, TLS, timeout, or a 5xx answer."""


class RegistryUnauthorized(RegistryError):
    """The registry refused the request with the credentials tried (the message names their source)."""


class ReferenceNotFound(RegistryError):
    """The registry holds no such repository, tag or digest."""


class ArtifactRejected(RegistryError):
    """The artifact is not a docs-mcp index this version reads, or its layer is unsafe to extract."""


class DigestMismatch(ArtifactRejected):
    """Downloaded bytes do not match the digest or size of the descriptor that names them."""
