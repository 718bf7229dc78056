"""Manifests: schema checks with field paths, overrides, globs, the published schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.corpus.docs_manifest import (
    DocsManifest,
    load_manifest,
    manifest_schema,
    parse_manifest,
)
from docs_mcp.errors import Finding
from docs_mcp.parse.strategy import Strategy

REPO_ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(30)


def _parse(data: object, path: str = ".docs-mcp.json") -> tuple[DocsManifest, list[Finding]]:
    return parse_manifest(json.dumps(data).encode(), path)


def test_published_schema_is_byte_identical_to_the_packaged_one() -> None:
    published = (REPO_ROOT / "schemas" / "docs-mcp.schema.json").read_bytes()
    packaged = (REPO_ROOT / "src" / "docs_mcp" / "corpus" / "schemas" / "docs-mcp.schema.json").read_bytes()
    assert published == packaged
    assert manifest_schema() == json.loads(packaged)


def test_a_reference_style_manifest_is_accepted_unchanged() -> None:
    manifest, findings = _parse(
        {
            "$schema": "https://example.com/docs-mcp.schema.json",
            "version": "1",
            "strategy": {"chunk_by": "h3", "max_chunk_size": 8000, "min_chunk_size": 200},
            "metadata": {"language": "python"},
            "taxonomy": {
                "language": {"vector_collapse": True, "properties": {"python": {"mcp_resource": True}}}
            },
            "mcpServerInstructions": "Use search_docs.",
            "overrides": [{"pattern": "models/**/*.md", "strategy": {"chunk_by": "file"}, "metadata": {}}],
        }
    )
    assert findings == []
    assert manifest.valid
    assert manifest.strategy == Strategy("h3", 8000, 200)
    assert manifest.taxonomy["language"].values == ("python",)
    assert manifest.taxonomy["language"].vector_collapse
    assert manifest.taxonomy["language"].resources == ("python",)
    assert manifest.instructions == "Use search_docs."


def test_a_bad_enum_in_an_override_names_the_json_path_of_the_field() -> None:
    overrides = [
        {"pattern": "a.md"},
        {"pattern": "b.md"},
        {"pattern": "c.md", "strategy": {"chunk_by": "h7"}},
    ]
    manifest, findings = _parse({"version": "1", "overrides": overrides}, "sdks/.docs-mcp.json")
    assert not manifest.valid
    assert len(findings) == 1
    finding = findings[0]
    assert (finding.path, finding.severity, finding.rule) == (
        "sdks/.docs-mcp.json",
        "error",
        "invalid-manifest",
    )
    assert finding.message.startswith("overrides[2].strategy.chunk_by: 'h7' is not one of [")
    assert "'h2'" in finding.message and "file" in finding.message


@pytest.mark.parametrize(
    ("data", "expected_start"),
    [
        ({"version": 1}, "version: '1' was expected"),
        ({"version": "1", "metadata": {"language": 3}}, "metadata.language: 3 is not of type 'string'"),
        (
            {"version": "1", "strategy": {"max_chunk_size": 1000}},
            "strategy: 'chunk_by' is a required property",
        ),
        (  # the floor (issue 19: 1 gave one chunk per character)
            {"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 99}},
            "strategy.max_chunk_size: 99 is less than the minimum of 100 (MIN_MAX_CHUNK_SIZE",
        ),
        ({"version": "1", "strategy": {"chunk_by": "h2", "max_chunk_size": 0}}, "strategy.max_chunk_size: 0"),
        ({"strategy": {"chunk_by": "h2"}}, "(manifest root): 'version' is a required property"),
        (
            {"version": "1", "taxonomy": {"language": {"properties": {"go": {"mcp_resource": "yes"}}}}},
            "taxonomy.language.properties.go.mcp_resource: 'yes' is not of type 'boolean'",
        ),
        (
            {"version": "1", "taxonomy": {"language": {"properties": {"go": {"aliases": "golang"}}}}},
            "taxonomy.language.properties.go.aliases: 'golang' is not of type 'array'",
        ),
        (
            {"version": "1", "taxonomy": {"language": {"properties": {"go": {"aliases": [""]}}}}},
            "taxonomy.language.properties.go.aliases[0]: '' should be non-empty",
        ),
    ],
)
def test_schema_violations_are_reported_with_their_field(data: object, expected_start: str) -> None:
    _, findings = _parse(data)
    assert [f.message[: len(expected_start)] for f in findings] == [expected_start]


def test_unknown_keys_are_warnings_naming_the_closest_known_key_and_are_ignored() -> None:
    # The TypeScript reference ignores unknown keys; its own test fixture carries "instructions".
    data = {
        "version": "1",
        "instructions": "Use search_docs.",
        "strategy": {"chunk_by": "h3", "chunkby": "h2"},
        "overrides": [{"pattern": "a.md", "metdata": {}}],
        "zzz": 1,
    }
    text = json.dumps(data, indent=2).encode()
    manifest, findings = parse_manifest(text, "sdks/.docs-mcp.json")
    assert manifest.valid and manifest.strategy == Strategy(chunk_by="h3")
    assert {(f.severity, f.rule) for f in findings} == {("warning", "unknown-manifest-key")}
    messages = sorted((f.line, f.message) for f in findings)
    assert messages == [
        (
            3,
            "unknown key 'instructions' at the manifest root is ignored; "
            "did you mean 'mcpServerInstructions'?",
        ),
        (6, "unknown key 'chunkby' in strategy is ignored; did you mean 'chunk_by'?"),
        (11, "unknown key 'metdata' in overrides[0] is ignored; did you mean 'metadata'?"),
        (
            14,
            "unknown key 'zzz' at the manifest root is ignored; known keys: "
            "$schema, version, strategy, metadata, taxonomy, mcpServerInstructions, libraryVersion, "
            "embedding, site, overrides",
        ),
    ]


def test_a_wrong_type_next_to_an_unknown_key_is_still_an_error() -> None:
    manifest, findings = _parse({"version": "1", "instructions": "x", "strategy": {"chunk_by": 2}})
    assert not manifest.valid
    assert sorted((f.severity, f.rule) for f in findings) == [
        ("error", "invalid-manifest"),
        ("warning", "unknown-manifest-key"),
    ]


def test_invalid_json_is_an_error_at_its_line(tmp_path: Path) -> None:
    file = tmp_path / ".docs-mcp.json"
    file.write_text('{\n  "version": "1",\n  "strategy": {"chunk_by": "h2",}\n}\n')
    manifest, findings = load_manifest(file, ".docs-mcp.json")
    assert not manifest.valid
    assert [(f.line, f.rule) for f in findings] == [(3, "invalid-manifest")]
    assert "not valid JSON" in findings[0].message


def test_an_unreadable_manifest_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / ".docs-mcp.json").symlink_to(tmp_path / "missing.json")
    manifest, findings = load_manifest(tmp_path / ".docs-mcp.json", "x/.docs-mcp.json")
    assert not manifest.valid
    assert [(f.path, f.rule) for f in findings] == [("x/.docs-mcp.json", "invalid-manifest")]
    assert "cannot read manifest" in findings[0].message


def test_an_invalid_manifest_still_declares_its_well_formed_facet_keys() -> None:
    manifest, findings = _parse(
        {"version": "1", "metadata": {"language": "go"}, "taxonomy": {"scope": {}}, "strategy": "h2"}
    )
    assert findings
    assert manifest.facet_keys == ("language", "scope")
    # Files under a broken manifest get the default, without a default-strategy warning each.
    settings = manifest.settings_for("a.md")
    assert settings.strategy == Strategy() and settings.strategy_explicit and dict(settings.metadata) == {}


def test_every_matching_override_applies_in_order_so_the_last_one_wins() -> None:
    manifest, _ = _parse(
        {
            "version": "1",
            "strategy": {"chunk_by": "h2"},
            "metadata": {"language": "go", "scope": "sdk-specific"},
            "overrides": [
                {"pattern": "**/*.md", "metadata": {"tier": "one"}},
                {"pattern": "models/*.md", "strategy": {"chunk_by": "file"}, "metadata": {"tier": "two"}},
                {"pattern": "models/user.md", "strategy": {"chunk_by": "h3", "max_chunk_size": 500}},
                {"pattern": "guides/*.md", "metadata": {"scope": "global-guide"}},
            ],
        },
        "sdks/go/.docs-mcp.json",
    )
    user = manifest.settings_for("sdks/go/models/user.md")
    assert user.strategy == Strategy("h3", 500)
    assert dict(user.metadata) == {"language": "go", "scope": "sdk-specific", "tier": "two"}
    order = manifest.settings_for("sdks/go/models/order.md")
    assert order.strategy == Strategy("file")
    readme = manifest.settings_for("sdks/go/README.md")
    assert readme.strategy == Strategy("h2") and readme.metadata["tier"] == "one"
    assert readme.strategy_explicit


def test_override_globs_are_relative_to_the_manifest_folder() -> None:
    manifest, _ = _parse(
        {"version": "1", "overrides": [{"pattern": "README.md", "strategy": {"chunk_by": "h3"}}]},
        "sdks/go/.docs-mcp.json",
    )
    assert manifest.settings_for("sdks/go/README.md").strategy == Strategy("h3")
    assert manifest.settings_for("sdks/go/docs/README.md").strategy == Strategy()


def test_a_manifest_without_strategy_leaves_files_on_the_implicit_default() -> None:
    manifest, _ = _parse({"version": "1", "metadata": {"language": "go"}})
    settings = manifest.settings_for("a.md")
    assert settings.strategy == Strategy() and not settings.strategy_explicit
    assert dict(settings.metadata) == {"language": "go"}


def test_value_aliases_are_read_per_value() -> None:
    manifest, findings = _parse(
        {
            "version": "1",
            "taxonomy": {
                "language": {
                    "vector_collapse": True,
                    "properties": {
                        "go": {"aliases": ["golang", "go-lang"]},
                        "python": {"mcp_resource": True},
                    },
                }
            },
        }
    )
    assert findings == []
    entry = manifest.taxonomy["language"]
    assert entry.aliases == {"go": ("golang", "go-lang")}
    assert (entry.vector_collapse, entry.resources) == (True, ("python",))
