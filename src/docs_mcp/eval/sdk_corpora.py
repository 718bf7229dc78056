"""Materialise the shared SDK corpora (dub, mistral) as a docs folder a host would hand to docs-mcp.

The evaldata corpora come without manifests. This copies them into a staging directory (spec §2:
the host owns materialisation) and writes one manifest per ``<api>/<language>`` folder declaring the
facets ``api``, ``language`` and ``scope``, so benchmarks and tests can filter by language and the
auto-include rule has a ``scope`` facet to act on.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

# Generated model pages hold single tables of up to ~95 KB; a table is never cut, so the limit
# must exceed the largest one for these corpora to validate.
SDK_MAX_CHUNK_SIZE = 100_000


def _manifest(metadata: dict[str, str] | None = None, taxonomy: dict[str, list[str]] | None = None) -> str:
    manifest: dict[str, object] = {
        "version": "1",
        "strategy": {"chunk_by": "h2", "max_chunk_size": SDK_MAX_CHUNK_SIZE},
    }
    if metadata:
        manifest["metadata"] = metadata
    if taxonomy:
        manifest["taxonomy"] = {
            key: {"properties": {value: {} for value in values}} for key, values in taxonomy.items()
        }
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


def materialize_sdk_corpora(corpora_dir: Path, dest: Path) -> Path:
    """Copy ``corpora_dir`` (``<api>/<language>/...``) into ``dest`` with manifests; returns ``dest``.

    Raises ``FileNotFoundError`` when ``corpora_dir`` holds no ``<api>/<language>`` folders.
    """
    folders = sorted(p for p in corpora_dir.glob("*/*") if p.is_dir())
    if not folders:
        raise FileNotFoundError(f"no <api>/<language> folders under {corpora_dir}")
    dest.mkdir(parents=True, exist_ok=True)
    apis = sorted({folder.parent.name for folder in folders})
    languages = sorted({folder.name for folder in folders})
    taxonomy = {"api": apis, "language": languages, "scope": ["global-guide", "sdk-specific"]}
    (dest / ".docs-mcp.json").write_text(_manifest(taxonomy=taxonomy))
    for folder in folders:
        target = dest / folder.parent.name / folder.name
        shutil.copytree(folder, target, dirs_exist_ok=True)
        metadata = {"api": folder.parent.name, "language": folder.name, "scope": "sdk-specific"}
        (target / ".docs-mcp.json").write_text(_manifest(metadata=metadata))
    return dest
