"""Index artifacts over OCI: publish a built index to a registry, pull one into a folder.

    from docs_mcp.artifact import publish, pull

    published = publish(Path("index"), "ghcr.io/acme/docs-index:v1")
    print(published.reference)                 # ghcr.io/acme/docs-index:v1@sha256:...
    pulled = pull("ghcr.io/acme/docs-index:v1", Path("/srv/index"))
    print(pulled.digest, pulled.path, pulled.manifest.chunk_count)

Needs the ``artifact`` extra (``pip install 'docs-mcp[artifact]'``); without it the functions raise
``ConfigError`` naming it. Every failure is a ``DocsMcpError`` (``RegistryError`` and its children).
"""

from docs_mcp.artifact.credentials import Credentials
from docs_mcp.artifact.oci import ARTIFACT_TYPE
from docs_mcp.artifact.publishing import PublishResult, publish
from docs_mcp.artifact.pulling import PullResult, pull, resolve
from docs_mcp.artifact.reference import Reference, is_oci_reference, parse_reference

__all__ = [
    "ARTIFACT_TYPE",
    "Credentials",
    "PublishResult",
    "PullResult",
    "Reference",
    "is_oci_reference",
    "parse_reference",
    "publish",
    "pull",
    "resolve",
]
