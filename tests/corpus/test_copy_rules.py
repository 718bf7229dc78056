"""Rules manifests declare per glob: ``copy_of`` (these files are copies of those, folded at build
whatever their texts) and ``metadata.kind``; bad ones give one finding naming the manifest and field."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path

import pytest

from docs_mcp.corpus.copies import copy_groups
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.index_manifest import read_manifest
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)

MAIN = (
    "# Acme Python Client\n\n## Background\n\nPass a RetryConfig to retry failed calls with exponential "
    "backoff: the initial interval, the maximum interval and the exponent.\n\n## Pagination\n\n"
    "Call next() on a page.\n"
)
# A package's README: its own title, its own words for the same section (the text test says no copy,
# and a guide section, unlike a README topic or an operation, is not folded by place alone).
AZURE = (
    "# Acme on Azure\n\n## Background\n\nThe Azure deployment retries throttled requests by itself; give the "
    "client a backoff strategy object to change how long it keeps trying.\n\n## Deployments\n\n"
    "Name the Azure deployment to call.\n"
)


def manifest(*overrides: Mapping[str, object]) -> str:
    return json.dumps({"version": "1", "strategy": {"chunk_by": "h2"}, "overrides": list(overrides)})


def docs_with(tmp_path: Path, *overrides: Mapping[str, object], **extra: str) -> Path:
    files = {"README.md": MAIN, "packages/azure/README.md": AZURE, ".docs-mcp.json": manifest(*overrides)}
    return write_docs(tmp_path / "docs", {**files, **extra})


COPY_RULE = {"pattern": "packages/*/README.md", "copy_of": "README.md"}


def test_a_declared_copy_folds_its_sections_of_the_same_headings_whatever_the_text(tmp_path: Path) -> None:
    assert copy_groups(load_corpus(docs_with(tmp_path / "plain")).chunks) == []  # too different to detect
    corpus = load_corpus(docs_with(tmp_path / "ruled", COPY_RULE))
    assert corpus.declared_copies == (("packages/azure/README.md", "README.md"),)
    assert copy_groups(corpus.chunks, corpus.declared_copies) == [
        ["README.md#acme-python-client/background", "packages/azure/README.md#acme-on-azure/background"]
    ]  # the original first; the package's own section and its title pair with nothing


def test_the_build_records_declared_copies_and_search_shows_one_hit_with_the_copy_in_also_in(
    tmp_path: Path,
) -> None:
    docs = docs_with(tmp_path, COPY_RULE)
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    assert read_manifest(tmp_path / "out").copy_groups == 1  # each copy's row names its group's main copy
    index = DocsIndex.open(tmp_path / "out")
    hits = index.search(SearchRequest("retries backoff", limit=5)).hits
    retries = [hit for hit in hits if hit.heading == "Background"]
    assert len(retries) == 1
    other = {"README.md", "packages/azure/README.md"} - {retries[0].file_path}
    assert [(v.facet, v.value) for v in retries[0].also_in] == [("copy", other.pop())]
    assert "Azure deployment" in (
        index.get("packages/azure/README.md#acme-on-azure/background").chunks[0].markdown or ""
    )


def test_validate_counts_declared_copies_like_found_ones(tmp_path: Path) -> None:
    report = validate(docs_with(tmp_path, COPY_RULE))
    assert (report.copy_groups, report.copies, report.findings) == (1, 1, [])
    assert "1 section repeats 1 other" in report.summary()


def test_a_declared_copy_of_a_mirrored_tree_pairs_each_file_with_its_original(tmp_path: Path) -> None:
    page = "# Link\n\n## Fields\n\n| Field | Type |\n| --- | --- |\n| `id` | str |\n"
    rule = {"pattern": "packages/*/docs/**", "copy_of": "docs/**"}
    docs = docs_with(
        tmp_path,
        rule,
        **{
            "docs/models/link.md": page,
            "packages/azure/docs/models/link.md": page.replace(
                "`id` | str", "`id` | str (Azure resource id)"
            ),
            "packages/azure/docs/models/deployment.md": page.replace("Link", "Deployment"),  # no original
        },
    )
    corpus = load_corpus(docs)
    assert corpus.declared_copies == (("packages/azure/docs/models/link.md", "docs/models/link.md"),)
    assert [
        "docs/models/link.md#link/fields",
        "packages/azure/docs/models/link.md#link/fields",
    ] in copy_groups(corpus.chunks, corpus.declared_copies)


def test_a_kind_rule_per_glob_sets_every_section_and_a_later_file_rule_wins(tmp_path: Path) -> None:
    docs = docs_with(
        tmp_path,
        {"pattern": "guides/**", "metadata": {"kind": "guide"}},
        {"pattern": "guides/errors.md", "metadata": {"kind": "error"}},
        **{
            "guides/start.md": "# Start\n\nWelcome.\n\n## Install\n\nRun it.\n",
            "guides/errors.md": "# Errors\n\nOops.\n",
        },
    )
    corpus = load_corpus(docs)
    kinds = {
        chunk.id: chunk.metadata.get("kind") for chunk in corpus.chunks if chunk.file_path.startswith("g")
    }
    assert kinds == {
        "guides/errors.md#errors": "error",
        "guides/start.md#start": "guide",
        "guides/start.md#start/install": "guide",
    }
    assert corpus.findings == []


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        (
            {"pattern": "packages/**", "metadata": {"kind": "modle"}},
            ".docs-mcp.json: error: overrides[0].metadata.kind: unknown kind 'modle'; did you mean 'model'? "
            "the kinds are operation, model, error, topic, overview, guide (a taxonomy's kind properties may "
            "add more) [unknown-kind]",
        ),
        (
            {"pattern": "modles/**", "metadata": {"kind": "model"}},
            ".docs-mcp.json: warning: overrides[0].pattern: 'modles/**' matches no file this manifest "
            "governs, so its metadata.kind does nothing; fix the glob or remove the override "
            "[rule-matches-nothing]",
        ),
        (
            {"pattern": "packages/*/README-PYPI.md", "copy_of": "README.md"},
            ".docs-mcp.json: warning: overrides[0].pattern: 'packages/*/README-PYPI.md' matches no file this "
            "manifest governs, so its copy_of does nothing; fix the glob or remove the override "
            "[rule-matches-nothing]",
        ),
        (
            {"pattern": "packages/*/**", "copy_of": "docs/**"},
            ".docs-mcp.json: warning: overrides[0].copy_of: 'docs/**' names no other indexed file for any of "
            "the 1 file(s) its pattern matches (e.g. packages/azure/README.md -> docs/README.md); fix it or "
            "remove the override [rule-matches-nothing]",
        ),
        (
            {"pattern": "packages/azure/README.md", "copy_of": "*/README.md"},
            ".docs-mcp.json:1: error: overrides[0].copy_of: '*/README.md' cannot name the originals: it "
            "has more * or ** segments than the pattern 'packages/azure/README.md' has whole-segment ones to "
            "fill them with [invalid-manifest]",
        ),
    ],
)
def test_a_bad_rule_is_one_finding_naming_the_manifest_and_field(
    tmp_path: Path, override: dict[str, object], expected: str
) -> None:
    report = validate(docs_with(tmp_path, override))
    assert [finding.format() for finding in report.findings] == [expected]


def test_a_kind_in_front_matter_needs_no_declaration_but_must_be_known(tmp_path: Path) -> None:
    guide = "---\nmetadata:\n  kind: guide\n---\n# Guide\n\nRead me.\n"
    docs = docs_with(tmp_path, **{"guide.md": guide, "bad.md": guide.replace("guide\n---", "tutorial\n---")})
    findings = validate(docs).findings
    assert [(f.path, f.rule) for f in findings] == [("bad.md", "unknown-kind")]
    assert "unknown kind 'tutorial'" in findings[0].message


def test_a_real_package_readme_declared_a_copy_folds_into_the_main_readme(
    evaldata_dir: Path, tmp_path: Path
) -> None:
    source = evaldata_dir / "corpora" / "mistral" / "python"
    docs = tmp_path / "docs"
    for path in ("README.md", "packages/azure/README.md"):
        (docs / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / path, docs / path)
    rule = {"pattern": "packages/*/README.md", "copy_of": "README.md"}
    (docs / ".docs-mcp.json").write_text(manifest(rule), encoding="utf-8")
    corpus = load_corpus(docs)
    detected = copy_groups(corpus.chunks)
    declared = copy_groups(corpus.chunks, corpus.declared_copies)
    headings = {cid.rpartition("/")[2] for group in declared for cid in group}
    assert {"sdk-installation", "retries", "error-handling", "server-selection"} <= headings
    assert len(declared) > len(detected)
    assert all(group[0].startswith("README.md#") for group in declared)
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    hits = DocsIndex.open(tmp_path / "out").search(SearchRequest("retries backoff strategy", limit=10)).hits
    retries = [hit for hit in hits if hit.heading == "Retries"]
    assert len(retries) == 1  # the best-ranked of the two, the other in also_in
    shown = {retries[0].file_path, *(v.value for v in retries[0].also_in if v.facet == "copy")}
    assert shown == {"README.md", "packages/azure/README.md"}
