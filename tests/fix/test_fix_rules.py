"""``fix`` proposes ``kind`` rules (a folder uniformly one kind: one glob rule, a file that differs:
one rule for it) and copy rules (the detector's groups, near-copies by path), with their evidence in
the dry run; ``--write`` writes them, the build honours them, and fix then proposes nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from fix_support import assert_only_metadata_changed, snapshot

from docs_mcp.corpus.copies import copy_groups
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from docs_mcp.fix import fix
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(600)


def model(name: str) -> str:
    return (
        f"# {name}\n\nA {name.lower()} of the Acme API.\n\n## Fields\n\n"
        "| Field | Type | Required | Description |\n"
        f"| --- | --- | --- | --- |\n| `id` | str | yes | The {name.lower()}'s id. |\n"
        f"| `name` | str | no | What the {name.lower()} is called. |\n"
    )


README = (
    "# Acme Python Client\n\nThe Acme API from Python.\n\n## Installation\n\n"
    "```bash\npip install acme\n```\n\n"
    "## Retries\n\nPass a [RetryConfig](docs/models/retryconfig.md) to retry failed calls with exponential "
    "backoff: the initial interval, the maximum interval, the exponent and the longest time to keep "
    "trying.\n\n"
    "## Error Handling\n\nEvery failed call raises an [AcmeError](docs/models/acmeerror.md) with the status "
    "code and the body of the response.\n"
)
# The package's README: its own title, the same topics in partly its own words (the text test, at 60%
# of word pairs, says no copy for the retries section).
AZURE_README = (
    README.replace(
        "# Acme Python Client\n\nThe Acme API from Python.", "# Acme on Azure\n\nAcme hosted on Azure."
    )
    .replace("pip install acme", "pip install acme-azure")
    .replace(
        "Pass a [RetryConfig](docs/models/retryconfig.md) to retry failed calls with exponential "
        "backoff: the initial interval,",
        "The Azure client retries throttled calls by itself; pass a RetryConfig for exponential backoff: the "
        "initial interval,",
    )
)
OPERATIONS = (
    "# Links\n\n## Overview\n\n### Available Operations\n\n* [create](#create) - Create a link\n"
    "* [list](#list) - List links\n\n## create\n\nCreate a link.\n\n### Example Usage\n\n```python\n"
    "acme.links.create(url='https://acme.com')\n```\n\n### Parameters\n\n"
    "| Parameter | Type |\n| --- | --- |\n"
    "| `url` | str |\n\n### Response\n\n**[Link](../../models/link.md)**\n\n## list\n\nList links.\n\n"
    "### Example Usage\n\n```python\nacme.links.list()\n```\n\n### Parameters\n\n| Parameter | Type |\n"
    "| --- | --- |\n| `page` | int |\n\n### Response\n\n**[Links](../../models/links.md)**\n"
)
FILES = {
    "README.md": README,
    "README-PYPI.md": README.replace("](docs/", "](https://github.com/acme/acme-python/blob/main/docs/"),
    "docs/sdks/links/README.md": OPERATIONS,
    **{
        f"docs/models/{name.lower()}.md": model(name)
        for name in ("Link", "Links", "Tag", "Domain", "RetryConfig")
    },
    "docs/models/acmeerror.md": model("AcmeError"),
    "packages/azure/README.md": AZURE_README,
    **{
        f"packages/azure/docs/models/{name.lower()}.md": model(name)
        for name in ("Link", "Links", "Tag", "Domain", "Deployment")
    },
}


def overrides(docs: Path, manifest: str = ".docs-mcp.json") -> list[dict[str, Any]]:
    data: dict[str, Any] = json.loads((docs / manifest).read_text(encoding="utf-8"))
    return list(data.get("overrides", []))


def rules(found: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The kind and copy rules among a manifest's overrides, as (pattern, what)."""
    out = [(o["pattern"], f"kind {o['metadata']['kind']}") for o in found if "kind" in o.get("metadata", {})]
    return out + [(o["pattern"], f"copy of {o['copy_of']}") for o in found if "copy_of" in o]


def test_fix_proposes_kind_and_copy_rules_with_their_evidence(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", FILES)
    before = snapshot(docs)
    proposal = fix(docs)
    assert proposal.remaining == ()
    assert snapshot(docs) == before  # a dry run writes nothing
    text = proposal.render()
    assert (
        "# .docs-mcp.json: docs/models/**: kind model: the recogniser finds 5 of its 6 files model "
        "(1 error: rules of their own)\n" in text
    )
    assert (
        "# .docs-mcp.json: docs/models/acmeerror.md: kind error: its sections are error, its folder's model\n"
        in text
    )
    assert (
        "# .docs-mcp.json: README-PYPI.md: copies of README.md: 1 file with their original here, 4 sections "
        "under the same headings (4 the text test finds, 0 near-copies it misses), 100% alike on average\n"
    ) in text
    assert (
        "# .docs-mcp.json: packages/azure/**: copies of **: 5 files with their original here, 7 sections "
        "under the same headings (7 the text test finds, 0 near-copies it misses), 90% alike on average\n"
    ) in text
    proposal.write()
    assert rules(overrides(docs)) == [
        ("docs/models/**", "kind model"),
        ("docs/models/acmeerror.md", "kind error"),
        ("packages/azure/docs/**", "kind model"),
        ("README-PYPI.md", "copy of README.md"),
        ("packages/azure/**", "copy of **"),
    ]
    assert_only_metadata_changed(before, snapshot(docs))
    assert fix(docs).empty  # its own output needs nothing more


def test_the_written_rules_validate_clean_and_fold_what_the_text_test_missed(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", FILES)
    fix(docs).write()
    report = validate(docs, strict=True)
    assert report.findings == []
    corpus = load_corpus(docs)
    assert ("packages/azure/README.md", "README.md") in corpus.declared_copies
    # The detector already folds a package's copy of a README topic whatever its text (the azure
    # README's retries): the declared rule adds nothing to it, and loses nothing.
    detected = copy_groups(corpus.chunks)
    assert report.copies == sum(len(group) - 1 for group in detected)
    kinds = {
        chunk.file_path: chunk.metadata.get("kind")
        for chunk in corpus.chunks
        if "/models/" in chunk.file_path
    }
    assert kinds["docs/models/acmeerror.md"] == "error"
    assert {kind for path, kind in kinds.items() if path != "docs/models/acmeerror.md"} == {"model"}
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    hits = DocsIndex.open(tmp_path / "out").search(SearchRequest("retries exponential backoff", limit=5)).hits
    retries = [hit for hit in hits if hit.heading == "Retries"]
    assert len(retries) == 1  # the best-ranked of the three, the others in also_in
    shown = {retries[0].file_path, *(v.value for v in retries[0].also_in if v.facet == "copy")}
    assert shown == {"README.md", "README-PYPI.md", "packages/azure/README.md"}


def test_fix_adds_kind_rules_to_a_manifest_without_overriding_the_users(tmp_path: Path) -> None:
    mine = {"pattern": "docs/models/tag.md", "metadata": {"kind": "guide"}}
    manifest = {"version": "1", "strategy": {"chunk_by": "h2"}, "overrides": [mine]}
    docs = write_docs(tmp_path / "docs", {**FILES, ".docs-mcp.json": json.dumps(manifest)})
    proposal = fix(docs)
    assert proposal.mode == "repair"
    proposal.write()
    assert rules(overrides(docs))[:4] == [
        ("docs/models/**", "kind model"),
        ("docs/models/acmeerror.md", "kind error"),
        ("packages/azure/docs/**", "kind model"),
        ("docs/models/tag.md", "kind guide"),  # the user's rule stays after, so it still wins
    ]
    kinds = {chunk.file_path: chunk.metadata.get("kind") for chunk in load_corpus(docs).chunks}
    assert (kinds["docs/models/tag.md"], kinds["docs/models/link.md"]) == ("guide", "model")
    assert fix(docs).empty


def test_fix_on_the_dub_python_sdk_writes_kind_rules_and_near_copy_rules(
    evaldata_dir: Path, tmp_path: Path
) -> None:
    docs = Path(shutil.copytree(evaldata_dir / "corpora" / "dub" / "python", tmp_path / "python"))
    proposal = fix(docs)
    assert proposal.remaining == ()
    proposal.write()
    written = rules(overrides(docs))
    assert written[:2] == [("docs/models/**", "kind model"), ("docs/models/errors/**", "kind error")]
    # A type of one name in both namespaces whose example imports from its own: a near-copy.
    assert ("docs/models/operations/color.md", "copy of docs/models/components/color.md") in written
    assert all(what.startswith("copy of docs/models/components/") for _, what in written[2:])
    report = validate(docs, strict=True)
    assert report.findings == []
    assert report.copies > sum(len(group) - 1 for group in copy_groups(load_corpus(docs).chunks))
    assert fix(docs).empty


def test_fix_on_the_mistral_python_sdk_folds_its_packages_and_pypi_twins(
    evaldata_dir: Path, tmp_path: Path
) -> None:
    docs = Path(shutil.copytree(evaldata_dir / "corpora" / "mistral" / "python", tmp_path / "python"))
    proposal = fix(docs)
    assert proposal.remaining == ()
    text = proposal.render()
    assert "# .docs-mcp.json: packages/*/**: copies of **: " in text
    proposal.write()
    written = rules(overrides(docs))
    copies = [rule for rule in written if rule[1].startswith("copy")]
    assert copies == [("**/README-PYPI.md", "copy of **/README.md"), ("packages/*/**", "copy of **")]
    kinds = [rule for rule in written if rule[1].startswith("kind")]
    assert kinds[0] == ("docs/models/**", "kind model")
    assert ("packages/azure/docs/models/**", "kind model") in kinds
    assert {what for pattern, what in kinds if not pattern.endswith("**")} == {"kind error"}
    report = validate(docs, strict=True)
    assert report.findings == []
    corpus = load_corpus(docs)
    assert report.copies > sum(len(group) - 1 for group in copy_groups(corpus.chunks))  # the text test alone
    # The package's README says "Retries" in its own words: now one group with the main README's.
    groups = copy_groups(corpus.chunks, corpus.declared_copies)
    retries = next(group for group in groups if group[0] == "README.md#mistral-python-client/retries")
    assert "packages/azure/README.md#mistral-on-azure-python-client/retries" in retries
    assert fix(docs).empty
