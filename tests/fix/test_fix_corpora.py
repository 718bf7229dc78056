"""``fix`` on the real corpora: the raw claude-docs pages and the dub + mistral SDK docs get
manifests that validate with no finding, languages right per SDK folder, prose untouched."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fix_support import assert_only_metadata_changed, snapshot

from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from docs_mcp.fix import fix

pytestmark = pytest.mark.timeout(900)


def fix_and_check(docs: Path) -> dict[str, str]:
    """Fix ``docs``, write, check; returns the proposed language per SDK folder."""
    before = snapshot(docs)
    proposal = fix(docs)
    assert proposal.mode == "bootstrap" and proposal.remaining == ()
    proposal.write()
    report = validate(docs, strict=True)
    assert [f.format() for f in report.findings] == []
    assert fix(docs).empty
    assert_only_metadata_changed(before, snapshot(docs))
    return proposal.facets


def test_fix_makes_the_raw_claude_docs_validate_clean(evaldata_dir: Path, tmp_path: Path) -> None:
    docs = Path(shutil.copytree(evaldata_dir / "claude-docs" / "corpus", tmp_path / "docs"))
    assert fix_and_check(docs) == {}


@pytest.mark.slow
def test_fix_gives_each_sdk_corpus_folder_its_language_and_validates_clean(
    evaldata_dir: Path, tmp_path: Path
) -> None:
    docs = Path(shutil.copytree(evaldata_dir / "corpora", tmp_path / "docs"))
    facets = fix_and_check(docs)
    assert facets == {
        "dub/go": "go",
        "dub/python": "python",
        "dub/typescript": "typescript",
        "mistral/python": "python",
        "mistral/typescript": "typescript",
    }
    corpus = load_corpus(docs)
    for file in corpus.files:
        expected = facets[file.path.split("/")[0] + "/" + file.path.split("/")[1]]
        assert {chunk.metadata["language"] for chunk in file.chunks} == {expected}, file.path
        assert {chunk.metadata["scope"] for chunk in file.chunks} == {"sdk-specific"}
