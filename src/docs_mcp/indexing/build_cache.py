"""The build's cache folder: what a rebuild reuses (embeddings, chunked files, rows), kept out of ``--out``.

The index folder is the index: what users mount, copy and publish holds nothing else. The cache lives
under the user's cache directory (``store.cache_home``: ``$DOCS_MCP_CACHE_DIR``, else
``$XDG_CACHE_HOME/docs-mcp``, else ``~/.cache/docs-mcp``) in ``builds/<key>``, the key a digest of the
docs folder's absolute path and the site config the build reads, so two docs folders never share one
and rebuilding a folder finds its own. ``--cache-dir`` names another; deleting it costs only time.
Everything in it is checked as it is read (``docs_mcp.entry_file``, ``embedding.embedding_cache``).
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path

from docs_mcp.store.cache_home import default_cache_dir

__all__ = ["LEGACY_CACHE_DIR_NAME", "build_cache_dir"]

log = logging.getLogger(__name__)

# Where builds before this one kept the cache: inside OUT.
LEGACY_CACHE_DIR_NAME = ".docs-mcp-cache"
# Files of the older cache formats: never read again, so removed when found.
_STALE = ("chunks.pickle", "rows.arrow")


def build_cache_dir(docs_dir: Path, site_config: Path | None, out: Path, given: Path | None) -> Path:
    """The cache folder of building ``docs_dir`` (with ``site_config``) into ``out``: ``given``, else
    the default one. A cache an older build left inside ``out`` moves there first (its embeddings may
    have cost money); stale files of older formats are removed. Never raises: a cache that cannot be
    moved or cleaned is left where it is (logged) and the build makes what it needs again."""
    cache = Path(given) if given is not None else _default(docs_dir, site_config)
    legacy = out / LEGACY_CACHE_DIR_NAME
    try:
        if legacy.is_dir() and not cache.exists():
            cache.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(str(legacy), str(cache))
            log.info("moved the build cache from %s to %s", legacy, cache)
        for name in _STALE:
            (cache / name).unlink(missing_ok=True)
    except OSError as error:
        log.warning("could not move or clean the build cache %s (%s); continuing", cache, error)
    return cache


def _default(docs_dir: Path, site_config: Path | None) -> Path:
    key = hashlib.sha256()
    for part in (docs_dir, site_config):
        text = os.path.abspath(part) if part is not None else ""
        key.update(text.encode("utf-8", "surrogatepass") + b"\0")
    return default_cache_dir() / "builds" / key.hexdigest()[:32]
