"""Plans ``fix`` made, kept so that ``fix --write`` after a dry run applies what the dry run showed
instead of analysing the folder again.

A plan is keyed by a digest of what decides it: every file under the docs folder (posix path, size,
modification time in nanoseconds), the generator files near it and the README above it (which
``fix`` also reads), the fix settings (model, description, site config, ``--inline``) and the code
(the docs-mcp version and the ``fix`` package's sources). Any change gives another key, so a stored
plan is fresh by construction; a write still checks every file's text against what the plan read.

Storage: one JSON file per plan in ``$DOCS_MCP_CACHE_DIR/fix-plans`` (else ``$XDG_CACHE_HOME`` or
``~/.cache``, then ``docs-mcp/fix-plans``), written atomically; a plan is deleted once written, and
plans older than ``MAX_AGE_SECONDS`` are pruned. An unreadable or foreign file is no plan.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import docs_mcp
from docs_mcp.corpus.findings import SummaryFinding
from docs_mcp.errors import Finding
from docs_mcp.fix.generator_signs import ANCESTORS, CONFIG_NAMES
from docs_mcp.fix.proposal import FileChange, FixProposal

__all__ = ["PLAN_DIR", "discard", "plan_digest", "plans_dir", "recall", "remember"]

PLAN_DIR = "fix-plans"
_FORMAT = "docs-mcp fix plan 1"
MAX_AGE_SECONDS = 7 * 24 * 3600
_SKIPPED_FOLDERS = frozenset({".git", "node_modules", "__pycache__"})


def plans_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where plans are kept (see the module docstring)."""
    env = os.environ if environ is None else environ
    if env.get("DOCS_MCP_CACHE_DIR"):
        return Path(env["DOCS_MCP_CACHE_DIR"]) / PLAN_DIR
    base = Path(env["XDG_CACHE_HOME"]) if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "docs-mcp" / PLAN_DIR


@cache
def _code_fingerprint() -> bytes:
    digest = hashlib.sha256(f"{_FORMAT}\0{docs_mcp.__version__}\0".encode())
    for source in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.digest()


def plan_digest(root: Path, settings: Mapping[str, object]) -> str:
    """The key of a plan for the folder ``root`` made with ``settings`` (JSON values). Raises nothing:
    a file that cannot be read for its size counts as missing."""
    digest = hashlib.sha256(_code_fingerprint())
    digest.update(json.dumps(dict(settings), sort_keys=True, default=str).encode())
    top = root.absolute()
    digest.update(str(top).encode() + b"\0")
    for folder, folders, files in os.walk(top):
        folders[:] = sorted(name for name in folders if name not in _SKIPPED_FOLDERS)
        for name in sorted(files):
            _stat_into(digest, Path(folder) / name, top)
    above = top
    for _ in range(ANCESTORS):
        above = above.parent
        for name in (*CONFIG_NAMES, "README.md"):
            _stat_into(digest, above / name, top)
    return digest.hexdigest()


def _stat_into(digest: Any, path: Path, top: Path) -> None:
    try:
        info = path.stat()
    except OSError:
        return
    where = os.path.relpath(path, top)
    digest.update(f"{where}\0{info.st_size}\0{info.st_mtime_ns}\n".encode("utf-8", "surrogatepass"))


def remember(proposal: FixProposal, key: str, directory: Path | None = None) -> Path | None:
    """Store ``proposal`` under ``key``; returns the file, or None when the cache cannot be written
    (a plan is an optimisation: its loss only costs the next run an analysis)."""
    folder = directory or plans_dir()
    data = {
        "format": _FORMAT,
        "docs_dir": str(proposal.docs_dir.absolute()),
        "mode": proposal.mode,
        "changes": [[c.path, c.before, c.after, list(c.reasons)] for c in proposal.changes],
        "remaining": [f.to_dict() for f in proposal.remaining],
        "notes": list(proposal.notes),
        "facets": proposal.facets,
    }
    target = folder / f"{key}.json"
    temporary = folder / f".{key}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _prune(folder)
        temporary.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        temporary.unlink(missing_ok=True)
        return None
    return target


def recall(root: Path, key: str, directory: Path | None = None) -> FixProposal | None:
    """The plan stored under ``key`` for ``root``, or None (none, unreadable, or another folder's)."""
    path = (directory or plans_dir()) / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != _FORMAT or data.get("docs_dir") != str(root.absolute()):
            return None
        return FixProposal(
            docs_dir=root,
            mode=data["mode"],
            changes=tuple(FileChange(p, b, a, tuple(r)) for p, b, a, r in data["changes"]),
            remaining=tuple(_finding(item) for item in data["remaining"]),
            notes=(*data["notes"], f"the plan made earlier ({path}) is used: the folder is unchanged since"),
            facets=dict(data["facets"]),
            plan=path,
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def discard(key: str, directory: Path | None = None) -> None:
    """Forget the plan under ``key`` (it was written: the folder it was made for is gone)."""
    ((directory or plans_dir()) / f"{key}.json").unlink(missing_ok=True)


def _finding(data: dict[str, Any]) -> Finding:
    fields = (data["path"], data["line"], data["severity"], data["message"], data["rule"])
    if "paths" in data:
        return SummaryFinding(*fields, tuple(data["paths"]))
    return Finding(*fields)


def _prune(folder: Path) -> None:
    cutoff = time.time() - MAX_AGE_SECONDS
    for old in folder.glob("*.json"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:
            continue
