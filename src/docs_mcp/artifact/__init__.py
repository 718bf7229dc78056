"""Index artifacts over OCI: publish a built index to a registry, pull one into a folder.

    from docs_mcp.artifact import publish, pull

    published = publish(Path("index"), "ghcr.io/acme/docs-index:v1")
    print(published.reference)                 # ghcr.io/acme/docs-index:v1@sha256:...
    pulled = pull("ghcr.io/acme/docs-index:v1", Path("/srv/index"))
    print(pulled.digest, pulled.path, pulled.manifest.chunk_count)

Needs the ``artifact`` extra (``pip install 'docs-mcp-index[artifact]'``); without it the functions raise
``ConfigError`` naming it. Every failure is a ``DocsMcpError`` (``RegistryError`` and its children).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.artifact.credentials import Credentials as Credentials
    from docs_mcp.artifact.oci import ARTIFACT_TYPE as ARTIFACT_TYPE
    from docs_mcp.artifact.publishing import PublishResult as PublishResult
    from docs_mcp.artifact.publishing import publish as publish
    from docs_mcp.artifact.pulling import PullResult as PullResult
    from docs_mcp.artifact.pulling import pull as pull
    from docs_mcp.artifact.pulling import resolve as resolve
    from docs_mcp.artifact.reference import Reference as Reference
    from docs_mcp.artifact.reference import is_oci_reference as is_oci_reference
    from docs_mcp.artifact.reference import parse_reference as parse_reference

__all__, __getattr__, __dir__ = lazy_exports(__name__)
