"""Stage the claude-docs labelled set (evaldata ``claude-docs/corpus``) as a docs folder to build.

The gold ids of its 100 questions are whole ``##`` sections (232 of them), one of which is 20,059
characters long, over the default ``max_chunk_size``. The staged copy gets a root manifest that
chunks by ``h2`` with a limit above every section, so no section is split and the ids match the labels.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

CLAUDE_DOCS = "claude-docs"
QUERIES_FILE = "queries.jsonl"
# Above the largest section (20,059 characters) with room to spare; small enough to stay meaningful.
CLAUDE_DOCS_MAX_CHUNK_SIZE = 50_000


def claude_docs_queries(evaldata_dir: Path) -> Path:
    """The labelled query file of the set (``claude-docs/queries.jsonl``)."""
    return evaldata_dir / CLAUDE_DOCS / QUERIES_FILE


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
