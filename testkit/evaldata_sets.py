"""The shared evaluation sets staged as docs folders, for tests and benchmarks.

claude-docs: stage the claude-docs labelled set (evaldata ``claude-docs/corpus``) as a docs folder to build.

The gold ids of its 100 questions are whole ``##`` sections (232 of them). The raw folder builds as
it is (``tests/cli/test_build_raw_corpora.py``), its biggest sections cut into ``-part-N`` parts
under the default ``max_chunk_size``; the staged copy gets a root manifest that chunks by ``h2`` with
a limit of 50,000 characters, so fewer sections are cut and the benchmarks keep measuring what they
measured before blocks could be split (quality figures on the staged set are comparable over time).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from docs_mcp.eval.queries import load_queries

CLAUDE_DOCS = "claude-docs"
QUERIES_FILE = "queries.jsonl"
# Above the largest section (20,059 characters) with room to spare; small enough to stay meaningful.
CLAUDE_DOCS_MAX_CHUNK_SIZE = 50_000


# The labelled questions for the dub + mistral SDK corpora (tests/data/README.md).
SDK_QUERIES = Path(__file__).resolve().parents[1] / "tests" / "data" / "sdk_queries.jsonl"


def claude_docs_queries(evaldata_dir: Path) -> Path:
    """The labelled query file of the set (``claude-docs/queries.jsonl``)."""
    return evaldata_dir / CLAUDE_DOCS / QUERIES_FILE


def question_texts(queries_file: Path) -> list[str]:
    """The questions of a labelled query file, in file order."""
    return [labelled.query for labelled in load_queries(queries_file)]


def stage_claude_docs(evaldata_dir: Path, dest: Path) -> Path:
    """Copy ``evaldata_dir/claude-docs/corpus`` to ``dest`` with a root ``.docs-mcp.json``; returns ``dest``.

    ``dest`` may exist (files are overwritten). Raises ``FileNotFoundError`` when the corpus is missing.
    """
    corpus = evaldata_dir / CLAUDE_DOCS / "corpus"
    if not corpus.is_dir():
        raise FileNotFoundError(f"no claude-docs corpus at {corpus}")
    shutil.copytree(corpus, dest, dirs_exist_ok=True)
    manifest = {"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": CLAUDE_DOCS_MAX_CHUNK_SIZE}}
    (dest / ".docs-mcp.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return dest


# Materialise the shared SDK corpora (dub, mistral) as a docs folder a host would hand to docs-mcp.
#
# The evaldata corpora come without manifests. This copies them into a staging directory (spec §2:
# the host owns materialisation) and writes one manifest per ``<api>/<language>`` folder declaring the
# facets ``api``, ``language`` and ``scope``, so benchmarks and tests can filter by language and the
# auto-include rule has a ``scope`` facet to act on. ``language`` is ``vector_collapse``: the same
# section in several languages folds into one hit when no language is asked for.


# Generated model pages hold single tables of up to ~95 KB. The raw corpora build as they are (tables
# are cut between rows); the staged copy keeps one chunk per such table, as before blocks could be
# split, so that speed and size benchmarks stay comparable over time.
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
            # One operation is documented once per language: hits fold across languages (issue 15).
            key: {
                "properties": {value: {} for value in values},
                **({"vector_collapse": True} if key == "language" else {}),
            }
            for key, values in taxonomy.items()
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


def materialize_sdk_copies(corpora_dir: Path, dest: Path, copies: int, *, link: bool = True) -> Path:
    """The SDK corpora ``copies`` times under ``dest`` (``copy-000/<api>/<language>/...``, each copy in
    its own folder, so every chunk id is new), with the facets of ``materialize_sdk_corpora``: a
    deterministic corpus of any size for scale benchmarks. Files are hard-linked where the file system
    allows (a million chunks is ~120 copies) and ``link``, else copied. Returns ``dest``."""
    folders = sorted(p for p in corpora_dir.glob("*/*") if p.is_dir())
    if not folders:
        raise FileNotFoundError(f"no <api>/<language> folders under {corpora_dir}")
    dest.mkdir(parents=True, exist_ok=True)
    taxonomy = {
        "api": sorted({folder.parent.name for folder in folders}),
        "language": sorted({folder.name for folder in folders}),
        "scope": ["global-guide", "sdk-specific"],
    }
    (dest / ".docs-mcp.json").write_text(_manifest(taxonomy=taxonomy))

    def link_or_copy(source: str, target: str) -> None:
        try:
            if not link:
                raise OSError("copied")
            os.link(source, target)
        except OSError:
            shutil.copy2(source, target)

    for copy in range(copies):
        for folder in folders:
            target = dest / f"copy-{copy:03d}" / folder.parent.name / folder.name
            shutil.copytree(folder, target, dirs_exist_ok=True, copy_function=link_or_copy)
            metadata = {"api": folder.parent.name, "language": folder.name, "scope": "sdk-specific"}
            (target / ".docs-mcp.json").write_text(_manifest(metadata=metadata))
    return dest
