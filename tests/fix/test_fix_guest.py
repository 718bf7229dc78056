"""``fix`` as a guest in a site's docs: proposals go into manifests only, and the drafted instructions
name the docs after the site (or the root page's title), never after a CONTRIBUTING page."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from docs_mcp.corpus.loader import load_corpus
from docs_mcp.fix import fix

DRIFT = Path(__file__).parent / "fixtures" / "fix" / "drift"


def test_in_a_sites_docs_fix_changes_manifests_only(tmp_path: Path) -> None:
    shutil.copytree(DRIFT / "docs", tmp_path / "docs")
    plain = fix(tmp_path / "docs", inline=True)
    assert any(change.path.endswith(".md") for change in plain.changes)  # asked, as a host it edits pages
    (tmp_path / "mkdocs.yml").write_text("site_name: Drift Docs\n", encoding="utf-8")
    proposal = fix(tmp_path / "docs", inline=True)
    assert proposal.changes
    assert any("no page is edited" in note and "mkdocs" in note for note in proposal.notes)
    assert all(change.path.endswith(".docs-mcp.json") for change in proposal.changes), [
        change.path for change in proposal.changes
    ]


def test_the_site_name_then_the_index_pages_h1_name_the_docs(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "CONTRIBUTING.md").write_text("# Contributing to This Repository\n\nHow to help.\n")
    (docs / "extensions.md").write_text("# Extensions\n\nText.\n")
    (docs / "index.md").write_text('<h1 align="center">\nWidgetLib\n</h1>\n\nWelcome.\n')
    instructions = json.loads(fix(docs).changes[0].after)["mcpServerInstructions"]
    assert instructions.startswith("Documentation of WidgetLib (")
    described = json.loads(fix(docs, description="The WidgetLib API").changes[0].after)
    assert described["mcpServerInstructions"].startswith("Documentation of The WidgetLib API (")
    (docs / "index.md").unlink()
    fallback = json.loads(fix(docs).changes[0].after)["mcpServerInstructions"]
    assert "Contributing" not in fallback
    (tmp_path / "mkdocs.yml").write_text("site_name: Widget Site\n", encoding="utf-8")
    named = json.loads(fix(docs).changes[0].after)["mcpServerInstructions"]
    assert named.startswith("Documentation of Widget Site (")


def test_a_site_config_given_to_fix_is_recorded_for_validate_and_build(tmp_path: Path) -> None:
    docs = tmp_path / "pages"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\n!!! note\n    Hello.\n", encoding="utf-8")
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "mkdocs.yml").write_text("site_name: Far Site\n", encoding="utf-8")
    proposal = fix(docs, site_config=tmp_path / "conf" / "mkdocs.yml")
    root = json.loads(proposal.changes[0].after)
    assert root["site"] == {"config": "../conf/mkdocs.yml"}
    assert root["mcpServerInstructions"].startswith("Documentation of Far Site (")
    proposal.write()
    assert load_corpus(docs).site.name == "Far Site"
