"""Data of the eval harness tests: a tiny docs tree whose rankings follow from its words."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).with_name("data")
ANIMAL_QUERIES = DATA / "animals-queries.jsonl"


def write_tree(files: dict[str, str], root: Path) -> Path:
    """Write ``files`` (relative path -> text; keys starting with ``_`` are notes) under ``root``."""
    for relative, text in files.items():
        if relative.startswith("_"):
            continue
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
