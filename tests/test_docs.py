"""Docs that cannot drift: every command and flag of ``--help`` is documented, and the slug table
of docs/authoring.md is what the code does."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from docs_mcp.chunk.slug import slugify
from docs_mcp.cli.main import COMMANDS, build_parser

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = "\n".join(
    p.read_text(encoding="utf-8") for p in [REPO_ROOT / "README.md", *(REPO_ROOT / "docs").glob("*.md")]
)


def _subparser(command: str) -> argparse.ArgumentParser:
    parser = build_parser(only=command)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    chosen: argparse.ArgumentParser = action.choices[command]
    return chosen


def _flags(parser: argparse.ArgumentParser) -> list[str]:
    return sorted(
        option for action in parser._actions for option in action.option_strings if option.startswith("--")
    )


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_is_documented(command: str) -> None:
    assert f"docs-mcp {command}" in DOCS


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_flag_of_a_command_is_documented(command: str) -> None:
    undocumented = [
        flag for flag in _flags(_subparser(command)) if flag != "--help" and not re.search(rf"{flag}\b", DOCS)
    ]
    assert undocumented == [], f"document these `docs-mcp {command}` flags in README.md or docs/*.md"


def _slug_table() -> list[tuple[str, str]]:
    text = (REPO_ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text.split("### Heading slugs", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|$", section, flags=re.MULTILINE)


def test_the_slug_rules_are_documented_with_non_ascii_examples() -> None:
    rows = _slug_table()
    assert len(rows) >= 5
    assert any(not heading.isascii() and not slug.isascii() for heading, slug in rows), "a kept script"
    assert any(not heading.isascii() and slug.isascii() for heading, slug in rows), "a folded accent"


@pytest.mark.parametrize(("heading", "slug"), _slug_table())
def test_the_documented_slug_of_a_heading_is_the_one_the_code_gives(heading: str, slug: str) -> None:
    assert slugify(heading) == slug
