"""validate(): the report over a docs folder, the example docs, the real corpora."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from docs_mcp.corpus.findings import SummaryFinding
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from docs_mcp.errors import ConfigError

pytestmark = pytest.mark.timeout(120)


def test_the_example_docs_validate_with_no_errors_and_no_warnings(examples_docs: Path) -> None:
    report = validate(examples_docs)
    assert [f.format() for f in report.findings] == []
    assert report.ok
    assert 12 <= report.file_count <= 20
    assert report.chunk_count > report.file_count


def test_the_example_docs_exercise_languages_scopes_and_every_hint_kind(examples_docs: Path) -> None:
    corpus = load_corpus(examples_docs)
    languages = Counter(c.metadata.get("language") for c in corpus.chunks)
    assert set(languages) == {None, "typescript", "python", "go"}
    assert {c.metadata["scope"] for c in corpus.chunks} == {"global-guide", "sdk-specific"}
    assert corpus.facets["language"].allowed == ("go", "python", "typescript")
    assert corpus.instructions and "search_docs" in corpus.instructions
    assert corpus.taxonomy["language"].vector_collapse
    assert corpus.taxonomy["scope"].resources == ("global-guide",)
    by_id = {c.id: c for c in corpus.chunks}
    # file-level hint: guides/errors.md splits at ###
    assert "guides/errors.md#errors/error-types/carderror" in by_id
    # section hint: the TypeScript Webhooks section splits at ###
    assert "sdks/typescript/README.md#acme-payments-typescript-sdk/webhooks/verifysignature" in by_id
    # section metadata: payouts are beta in every language
    beta = sorted(c.id for c in corpus.chunks if c.metadata.get("stability") == "beta")
    assert beta == [
        "sdks/go/README.md#acme-payments-go-sdk/createpayout",
        "sdks/python/README.md#acme-payments-python-sdk/createpayout",
        "sdks/typescript/README.md#acme-payments-typescript-sdk/createpayout",
    ]
    # frontmatter: title and metadata
    pagination = [c for c in corpus.chunks if c.file_path == "guides/pagination.md"]
    assert {c.metadata["stability"] for c in pagination} == {"stable"}
    # override: models are one chunk per file
    assert "sdks/go/models/payment.md" in by_id


def test_the_report_counts_and_serialises_findings(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n\n## One\n\nText.\n\n## Two\n\nText.\n")
    (tmp_path / "bad.md").write_bytes(b"# Bad \xff\n")
    report = validate(tmp_path)
    assert (report.file_count, report.chunk_count) == (1, 2)
    assert [f.rule for f in report.errors] == ["invalid-encoding"]
    assert [f.rule for f in report.warnings] == ["default-strategy"]
    assert not report.ok
    data = report.to_json()
    assert json.loads(json.dumps(data)) == data
    assert (data["ok"], data["files"], data["chunks"], data["errors"], data["warnings"]) == (
        False,
        1,
        2,
        1,
        1,
    )
    assert [(f["path"], f.get("paths")) for f in data["findings"]] == [("", ["a.md"]), ("bad.md", None)]
    assert report.summary().startswith("validated 1 files (2 chunks) in ")
    assert report.summary().endswith(": 1 error, 1 warning")


def test_strict_makes_warnings_fail_the_report(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    assert validate(tmp_path).ok
    strict = validate(tmp_path, strict=True)
    assert not strict.ok and strict.errors == [] and len(strict.warnings) == 1
    assert strict.to_json()["strict"] is True
    assert strict.summary().endswith("1 warning (strict: warnings fail)")


def test_warnings_alone_keep_the_report_ok(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# A\n")
    report = validate(tmp_path)
    assert report.ok and len(report.warnings) == 1


def test_validating_a_missing_folder_raises_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        validate(tmp_path / "missing")


@pytest.mark.slow
def test_the_real_corpora_validate_without_errors_and_name_their_cut_tables(
    evaldata_dir: Path, record_property: pytest.RecordProperty
) -> None:
    report = validate(evaldata_dir / "corpora")
    record_property("validate_seconds", round(report.seconds, 2))
    print(f"validated {report.file_count} files in {report.seconds:.2f} s")  # shown with -s
    assert report.file_count == 3958
    assert report.errors == []
    # Generated model pages whose single table exceeds max_chunk_size: one warning per file; no
    # manifests there: one summary warning for every file on the catch-all strategy.
    warnings = Counter(f.rule for f in report.warnings)
    assert warnings == {"split-inside-block": 108, "default-strategy": 1}  # 111 sections in 108 files
    [summary] = [f for f in report.warnings if isinstance(f, SummaryFinding)]
    assert len(summary.paths) == 3958 and summary.message.startswith(
        "3958 files declare no chunking strategy"
    )
    assert report.chunk_count >= report.file_count


@pytest.mark.slow
def test_chunk_ids_of_the_real_corpora_are_unique(evaldata_dir: Path) -> None:
    corpus = load_corpus(evaldata_dir / "corpora")
    all_ids = [c.id for c in corpus.chunks]
    assert len(all_ids) == len(set(all_ids))
    assert len(corpus.files) == 3958 and all(f.chunks for f in corpus.files)
