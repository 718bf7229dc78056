"""Where the index to score comes from: a built folder, an OCI artifact, or a docs folder built now.

Pulled and built indexes live in a temporary folder removed when the evaluation ends.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.errors import ConfigError

__all__ = ["OCI_PREFIX", "Source", "built_index", "index_folder"]

OCI_PREFIX = "oci://"


@dataclass(frozen=True)
class Source:
    """An index to score: ``path`` on disk, shown as ``label``."""

    label: str
    path: Path


@contextmanager
def index_folder(index: str | Path) -> Iterator[Source]:
    """The index folder ``index``, or the artifact ``oci://REF`` pulled into a temporary folder.

    Raises ``ConfigError`` for a missing folder (or a malformed reference, or the ``artifact`` extra
    missing), and the pull's own errors (``RegistryError`` and its children, ``ArtifactRejected``).
    """
    text = str(index)
    if not text.startswith(OCI_PREFIX):
        path = Path(index)
        if not path.is_dir():
            raise ConfigError(f"no index folder at {path}: pass the --out folder of docs-mcp build")
        yield Source(text, path)
        return
    from docs_mcp.artifact import pull  # the registry client, only when asked for

    with tempfile.TemporaryDirectory(prefix="docs-mcp-eval-") as scratch:
        # A private cache: scoring an artifact leaves nothing behind in the user's blob cache.
        pulled = pull(text, Path(scratch) / "index", cache_dir=Path(scratch) / "cache")
        yield Source(text, pulled.path)


@contextmanager
def built_index(docs_dir: Path, provider: str | None) -> Iterator[Source]:
    """``docs_dir`` built into a temporary index with embedding ``provider`` (None: the manifest's).

    Raises what ``docs_mcp.indexing.build`` raises (``ValidationFailed``, ``ConfigError``,
    ``EmbeddingError``).
    """
    from docs_mcp.indexing.pipeline import BuildOptions, build  # build-time code, only when asked

    if not Path(docs_dir).is_dir():
        raise ConfigError(f"no docs folder at {docs_dir}: --build takes the folder of markdown to build")
    with tempfile.TemporaryDirectory(prefix="docs-mcp-eval-") as scratch:
        out = Path(scratch) / "index"
        result = build(BuildOptions(docs_dir=Path(docs_dir), out=out, embedding_provider=provider))
        embedding = result.manifest.embedding
        yield Source(provider or (embedding.provider if embedding else "none"), out)
