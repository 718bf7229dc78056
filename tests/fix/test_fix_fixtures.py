"""``fix`` on fixture folders: ``fixtures/fix/CASE/docs`` must give ``CASE/expected.diff`` exactly,
and writing it must leave a folder that validates with no finding and that fix leaves alone.

Cases: ``bootstrap_sdk`` (no manifest: SDK folders, guides, model pages) and ``drift`` (manifests
with an unknown key, files on the catch-all, a wrong language in a manifest and in front matter,
sections that outgrew their strategy, a table cut inside, a dangling hint). Regenerate after an
intended change with ``DOCS_MCP_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fix_support import assert_only_metadata_changed, snapshot

from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from docs_mcp.errors import ConfigError
from docs_mcp.fix import fix

pytestmark = pytest.mark.timeout(120)

FIXTURES = Path(__file__).with_name("fixtures") / "fix"
CASES = sorted(p for p in FIXTURES.iterdir() if (p / "docs").is_dir())


def staged(case: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(case / "docs", tmp_path / "docs"))


MODES = [(case, inline) for case in CASES for inline in (False, True)]
MODE_IDS = [f"{case.name}-{'inline' if inline else 'manifests'}" for case, inline in MODES]


def golden(case: Path, inline: bool) -> Path:
    return case / ("expected-inline.diff" if inline else "expected.diff")


@pytest.mark.parametrize(("case", "inline"), MODES, ids=MODE_IDS)
def test_fix_proposes_the_golden_diff_and_writes_nothing(case: Path, inline: bool, tmp_path: Path) -> None:
    docs = staged(case, tmp_path)
    before = snapshot(docs)
    proposal = fix(docs, inline=inline)
    expected = golden(case, inline)
    if os.environ.get("DOCS_MCP_UPDATE_GOLDEN"):
        expected.write_text(proposal.render(), encoding="utf-8")
    assert proposal.render() == expected.read_text(encoding="utf-8")
    assert snapshot(docs) == before
    if inline:
        assert proposal.remaining == ()
    else:  # only manifests change
        assert all(c.path.rpartition("/")[2] == ".docs-mcp.json" for c in proposal.changes)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_writing_the_inline_proposal_validates_clean_and_fix_then_proposes_nothing(
    case: Path, tmp_path: Path
) -> None:
    docs = staged(case, tmp_path)
    before = snapshot(docs)
    written = fix(docs, inline=True).write()
    assert written
    report = validate(docs, strict=True)
    assert [f.format() for f in report.findings] == [] and report.ok
    again = fix(docs, inline=True)
    assert again.empty and again.mode == "repair"
    assert_only_metadata_changed(before, snapshot(docs))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_by_default_fix_changes_no_page_and_leaves_only_what_a_page_edit_would_fix(
    case: Path, tmp_path: Path
) -> None:
    docs = staged(case, tmp_path)
    pages = {p: b for p, b in snapshot(docs).items() if p.endswith(".md")}
    proposal = fix(docs)
    proposal.write()
    assert {p: b for p, b in snapshot(docs).items() if p.endswith(".md")} == pages
    # Left: a dangling hint and a wrong language in front matter (drift), which live in pages.
    assert {f.rule for f in validate(docs, strict=True).findings} <= {
        "dangling-hint",
        "metadata-value-not-allowed",
    }
    assert fix(docs).empty


def test_bootstrap_gives_each_sdk_folder_its_language_and_the_guides_the_global_scope(tmp_path: Path) -> None:
    docs = staged(FIXTURES / "bootstrap_sdk", tmp_path)
    proposal = fix(docs)
    assert proposal.mode == "bootstrap"
    assert proposal.facets == {"sdks/python": "python", "sdks/typescript": "typescript"}
    proposal.write()
    corpus = load_corpus(docs)
    by_file = {f.path: {k: v for k, v in f.chunks[0].metadata.items() if k != "kind"} for f in corpus.files}
    assert by_file["sdks/python/models/card.md"] == {"language": "python", "scope": "sdk-specific"}
    kinds = {f.path: f.chunks[0].metadata.get("kind") for f in corpus.files}
    assert kinds["sdks/python/models/card.md"] == "model"  # recognised at build, not written by fix
    assert by_file["sdks/typescript/README.md"] == {"language": "typescript", "scope": "sdk-specific"}
    assert by_file["guides/retries.md"] == {"scope": "global-guide"}
    # A model page is one chunk; a README a chunk per method.
    ids = [c.id for c in corpus.chunks]
    assert [i for i in ids if i.startswith("sdks/python/models/card.md")] == ["sdks/python/models/card.md"]
    assert "sdks/python/README.md#acme-python-sdk/createpayment" in ids


def test_a_proposal_refuses_to_write_over_a_file_changed_since(tmp_path: Path) -> None:
    docs = staged(FIXTURES / "drift", tmp_path)
    proposal = fix(docs, inline=True)
    (docs / "sdks/go/README.md").write_text("# Changed meanwhile\n")
    before = snapshot(docs)
    with pytest.raises(ConfigError, match="changed since fix read it"):
        proposal.write()
    assert snapshot(docs) == before
