"""Loading a docs folder: the file walk, manifests per folder, precedence, taxonomy, read errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.corpus.facets import FacetSpec
from docs_mcp.corpus.findings import SummaryFinding
from docs_mcp.corpus.loader import Corpus, load_corpus
from docs_mcp.errors import ConfigError

pytestmark = pytest.mark.timeout(60)

ROOT_MANIFEST = {
    "version": "1",
    "strategy": {"chunk_by": "h2"},
    "metadata": {"scope": "global-guide"},
    "mcpServerInstructions": "Search the Acme docs.",
    "taxonomy": {
        "language": {"properties": {"typescript": {}, "python": {}, "go": {}}},
        "scope": {"properties": {"global-guide": {}, "sdk-specific": {}}},
        "stability": {},
    },
}

SECTIONS = (
    "# Title\n\nIntro.\n\n## One\n\nText one.\n\n### Deep\n\nDeep text.\n\n"
    "## Two\n\nText two, a line long enough to answer something on its own (over eighty characters).\n"
)


def write(root: Path, files: dict[str, object]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content), encoding="utf-8")
    return root


def ids(corpus: Corpus, path: str) -> list[str]:
    return [c.id for f in corpus.files if f.path == path for c in f.chunks]


def rules(corpus: Corpus) -> list[tuple[str, int, str, str]]:
    return [(f.path, f.line, f.severity, f.rule) for f in corpus.findings]


def test_a_missing_docs_dir_raises_a_config_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_corpus(tmp_path / "nope")


def test_the_walk_skips_templates_hidden_folders_and_other_files_and_sorts_posix_paths(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            ".docs-mcp.json": ROOT_MANIFEST,
            "b.md": "# B\n",
            "a dir/with space.md": "# S\n",
            "prompt.template.md": "---\nname: t\ndescription: A prompt, not a doc\n---\n# T\n",
            ".git/notes.md": "# hidden\n",
            ".hidden.md": "# hidden\n",
            "notes.txt": "not markdown",
            "z/deep/x.md": "# X\n",
        },
    )
    seen: list[str] = []
    corpus = load_corpus(tmp_path, on_file=seen.append)
    assert [f.path for f in corpus.files] == ["a dir/with space.md", "b.md", "z/deep/x.md"]
    assert seen == ["a dir/with space.md", "b.md", "z/deep/x.md"]
    assert corpus.findings == []
    assert [prompt.file for prompt in corpus.prompts] == ["prompt.template.md"]  # a prompt, not a doc
    assert corpus.instructions == "Search the Acme docs."


def test_the_nearest_manifest_governs_and_manifests_do_not_merge(tmp_path: Path) -> None:
    go_manifest = {"version": "1", "strategy": {"chunk_by": "file"}, "metadata": {"language": "go"}}
    write(
        tmp_path,
        {
            ".docs-mcp.json": ROOT_MANIFEST,
            "sdks/go/.docs-mcp.json": go_manifest,
            "guides/retries.md": SECTIONS,
            "sdks/go/README.md": SECTIONS,
            "sdks/go/models/user.md": SECTIONS,
        },
    )
    corpus = load_corpus(tmp_path)
    assert ids(corpus, "guides/retries.md") == [
        "guides/retries.md#title",
        "guides/retries.md#title/one",
        "guides/retries.md#title/two",
    ]
    assert ids(corpus, "sdks/go/README.md") == ["sdks/go/README.md"]
    assert ids(corpus, "sdks/go/models/user.md") == ["sdks/go/models/user.md"]
    go_chunk = next(c for c in corpus.chunks if c.file_path == "sdks/go/README.md")
    # No "scope" from the root: the nearest manifest replaces it.
    assert dict(go_chunk.metadata) == {"language": "go"}
    assert dict(corpus.chunks[0].metadata) == {"scope": "global-guide"}
    assert corpus.findings == []


def test_overrides_of_the_governing_manifest_reach_files_in_subfolders(tmp_path: Path) -> None:
    manifest = {
        "version": "1",
        "strategy": {"chunk_by": "h2"},
        "metadata": {"language": "go", "scope": "sdk-specific"},
        "overrides": [
            {"pattern": "models/*.md", "strategy": {"chunk_by": "file"}},
            {
                "pattern": "**/legacy.md",
                "metadata": {"scope": "global-guide"},
                "strategy": {"chunk_by": "h3"},
            },
        ],
    }
    write(
        tmp_path,
        {
            ".docs-mcp.json": ROOT_MANIFEST,
            "sdks/go/.docs-mcp.json": manifest,
            "sdks/go/models/user.md": SECTIONS,
            "sdks/go/models/legacy.md": SECTIONS,
        },
    )
    corpus = load_corpus(tmp_path)
    assert ids(corpus, "sdks/go/models/user.md") == ["sdks/go/models/user.md"]
    assert ids(corpus, "sdks/go/models/legacy.md") == [
        "sdks/go/models/legacy.md#title",
        "sdks/go/models/legacy.md#title/one",
        "sdks/go/models/legacy.md#title/one/deep",
        "sdks/go/models/legacy.md#title/two",
    ]
    legacy = next(c for c in corpus.chunks if c.file_path == "sdks/go/models/legacy.md")
    assert dict(legacy.metadata) == {"language": "go", "scope": "global-guide"}


def test_precedence_is_manifest_then_inline_hint_then_frontmatter(tmp_path: Path) -> None:
    hint = '<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n\n'
    front = "---\nmcp_chunking_hint: file\n---\n"
    write(
        tmp_path,
        {
            ".docs-mcp.json": ROOT_MANIFEST,
            "manifest.md": SECTIONS,
            "hinted.md": hint + SECTIONS,
            "both.md": front + hint + SECTIONS,
        },
    )
    corpus = load_corpus(tmp_path)
    assert len(ids(corpus, "manifest.md")) == 3  # h2 from the manifest
    assert "hinted.md#title/one/deep" in ids(corpus, "hinted.md")  # the hint's h3 beats the manifest
    assert ids(corpus, "both.md") == ["both.md"]  # frontmatter beats the hint
    assert corpus.errors == []


def test_files_without_any_strategy_get_the_default_strategy_warning(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "sub/.docs-mcp.json": {"version": "1", "metadata": {"language": "go"}},
            "plain.md": SECTIONS,
            "sub/tagged.md": SECTIONS,
            "hinted.md": '<!-- mcp_chunking_hint: {"chunk_by": "h3"} -->\n' + SECTIONS,
        },
    )
    corpus = load_corpus(tmp_path)
    [summary] = corpus.warnings
    assert isinstance(summary, SummaryFinding)
    assert (summary.path, summary.rule, summary.paths) == (
        "",
        "default-strategy",
        ("plain.md", "sub/tagged.md"),
    )
    assert summary.message.startswith(
        "2 files declare no chunking strategy and use the catch-all **/*.md -> h2 (plain.md, sub/tagged.md); "
        "run `docs-mcp fix --docs-dir "
    )
    assert corpus.errors == []
    assert len(ids(corpus, "plain.md")) == 3  # still chunked, at h2


def test_the_default_strategy_summary_names_three_files_and_counts_the_rest(tmp_path: Path) -> None:
    write(tmp_path, {f"doc{n}.md": SECTIONS for n in range(5)})
    [summary] = load_corpus(tmp_path).warnings
    assert "(doc0.md, doc1.md, doc2.md and 2 more)" in summary.message
    assert isinstance(summary, SummaryFinding) and len(summary.paths) == 5


def test_an_invalid_manifest_is_an_error_yet_its_files_are_still_chunked(tmp_path: Path) -> None:
    broken = {"version": "1", "metadata": {"language": "go"}, "strategy": {"chunk_by": "h7"}}
    write(
        tmp_path,
        {
            ".docs-mcp.json": ROOT_MANIFEST,
            "sdks/go/.docs-mcp.json": broken,
            "sdks/go/README.md": SECTIONS
            + '\n<!-- mcp_metadata: {"language": "cobol"} -->\n\n## Three\n\nText three.\n',
        },
    )
    corpus = load_corpus(tmp_path)
    assert len(ids(corpus, "sdks/go/README.md")) == 4
    assert rules(corpus) == [
        ("sdks/go/.docs-mcp.json", 0, "error", "invalid-manifest"),
        ("sdks/go/README.md", 17, "error", "metadata-value-not-allowed"),
    ]
    assert corpus.errors[0].message.startswith("strategy.chunk_by: 'h7' is not one of")


def test_metadata_keys_must_be_declared_in_some_manifest(tmp_path: Path) -> None:
    doc = '# T\n\n<!-- mcp_metadata: {"stablity": "beta"} -->\n\n## Beta thing\n\nText.\n'
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "a.md": doc})
    corpus = load_corpus(tmp_path)
    assert rules(corpus) == [("a.md", 3, "error", "unknown-metadata-key")]
    message = corpus.errors[0].message
    assert "'stablity'" in message and "taxonomy" in message


def test_metadata_values_must_be_in_the_taxonomy_and_the_error_lists_the_allowed_ones(tmp_path: Path) -> None:
    doc = "---\nmetadata:\n  scope: global-guide\n  language: golang\n---\n# T\n\nText.\n"
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "a.md": doc})
    corpus = load_corpus(tmp_path)
    assert rules(corpus) == [("a.md", 4, "error", "metadata-value-not-allowed")]
    assert "'golang'" in corpus.errors[0].message
    assert "go, python, typescript" in corpus.errors[0].message


def test_a_taxonomy_key_without_properties_allows_any_string(tmp_path: Path) -> None:
    doc = '# T\n\n<!-- mcp_metadata: {"stability": "anything at all"} -->\n\n## S\n\nText.\n'
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "a.md": doc})
    corpus = load_corpus(tmp_path)
    assert corpus.findings == []
    assert corpus.facets["stability"] == FacetSpec("stability", None)
    section = next(c for c in corpus.chunks if c.heading == "S")
    assert section.metadata["stability"] == "anything at all"


def test_a_non_string_metadata_value_is_reported_once(tmp_path: Path) -> None:
    doc = '# T\n\n<!-- mcp_metadata: {"stability": 2} -->\n\n## S\n\nText.\n'
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "a.md": doc})
    corpus = load_corpus(tmp_path)
    assert rules(corpus) == [("a.md", 3, "error", "invalid-metadata")]


def test_manifest_metadata_is_checked_against_the_taxonomy_of_every_manifest(tmp_path: Path) -> None:
    sub = {
        "version": "1",
        "strategy": {"chunk_by": "h2"},
        "metadata": {"language": "go"},
        "overrides": [{"pattern": "*.md", "metadata": {"scope": "sdk"}}],
    }
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "go/.docs-mcp.json": sub, "go/a.md": "# A\n"})
    corpus = load_corpus(tmp_path)
    assert rules(corpus) == [("go/.docs-mcp.json", 0, "error", "metadata-value-not-allowed")]
    assert corpus.errors[0].message.startswith("overrides[0].metadata.scope: metadata value 'sdk'")


def test_facets_are_the_union_of_metadata_and_taxonomy_keys_over_all_manifests(tmp_path: Path) -> None:
    sub = {
        "version": "1",
        "metadata": {"product": "payments"},
        "taxonomy": {"language": {"properties": {"rust": {}}}},
    }
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "x/.docs-mcp.json": sub})
    corpus = load_corpus(tmp_path)
    assert corpus.facets == {
        "language": FacetSpec("language", ("go", "python", "rust", "typescript")),
        "product": FacetSpec("product", None),
        "scope": FacetSpec("scope", ("global-guide", "sdk-specific")),
        "stability": FacetSpec("stability", None),
    }
    assert corpus.taxonomy["language"].values == ("go", "python", "rust", "typescript")
    # Only the root manifest's instructions count.
    assert corpus.instructions == "Search the Acme docs."


def test_a_non_utf8_file_is_an_error_naming_the_byte_and_line_and_is_skipped(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".docs-mcp.json": ROOT_MANIFEST,
            "latin1.md": "# Caf\u00e9\n\nna\u00efve\n".encode("latin-1"),
            "ok.md": "# Ok\n",
        },
    )
    corpus = load_corpus(tmp_path)
    assert [f.path for f in corpus.files] == ["ok.md"]
    assert rules(corpus) == [("latin1.md", 1, "error", "invalid-encoding")]
    assert "byte 0xe9 at offset 5" in corpus.errors[0].message


def test_a_bom_and_crlf_file_is_read(tmp_path: Path) -> None:
    write(
        tmp_path,
        {".docs-mcp.json": ROOT_MANIFEST, "bom.md": "\ufeff# Title\r\n\r\n## One\r\n\r\nText.\r\n".encode()},
    )
    corpus = load_corpus(tmp_path)
    assert corpus.findings == []
    assert ids(corpus, "bom.md") == ["bom.md#title/one"]


def test_an_unreadable_file_is_an_error_and_the_rest_still_loads(tmp_path: Path) -> None:
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "ok.md": "# Ok\n"})
    (tmp_path / "gone.md").symlink_to(tmp_path / "missing-target.md")
    corpus = load_corpus(tmp_path)
    assert [f.path for f in corpus.files] == ["ok.md"]
    assert rules(corpus) == [("gone.md", 0, "error", "unreadable-file")]
    assert "cannot read file" in corpus.errors[0].message


def test_links_out_of_the_docs_root_are_not_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside", {"secret.md": "# Secret\n"})
    docs = write(tmp_path / "docs", {".docs-mcp.json": ROOT_MANIFEST, "ok.md": "# Ok\n"})
    (docs / "leak.md").symlink_to(outside / "secret.md")
    (docs / "leakdir").symlink_to(outside, target_is_directory=True)
    corpus = load_corpus(docs)
    assert [f.path for f in corpus.files] == ["ok.md"]
    assert rules(corpus) == [("leak.md", 0, "warning", "outside-root")]


def test_the_content_hash_covers_files_and_manifests_and_is_stable(tmp_path: Path) -> None:
    write(tmp_path, {".docs-mcp.json": ROOT_MANIFEST, "a.md": "# A\n", "b/c.md": "# C\n"})
    first = load_corpus(tmp_path).content_hash
    assert load_corpus(tmp_path).content_hash == first
    (tmp_path / "a.md").write_text("# A changed\n")
    second = load_corpus(tmp_path).content_hash
    assert second != first
    manifest = dict(ROOT_MANIFEST, mcpServerInstructions="Other.")
    write(tmp_path, {".docs-mcp.json": manifest})
    assert load_corpus(tmp_path).content_hash not in (first, second)


def test_chunking_in_worker_processes_gives_the_same_corpus(tmp_path: Path) -> None:
    files: dict[str, object] = {".docs-mcp.json": ROOT_MANIFEST, "bad.md": b"\xff"}
    files.update({f"part{i // 10}/doc{i}.md": SECTIONS.replace("Title", f"Title {i}") for i in range(40)})
    write(tmp_path, files)
    seen: list[str] = []
    parallel = load_corpus(tmp_path, on_file=seen.append, workers=2)
    serial = load_corpus(tmp_path, workers=1)
    assert parallel.files == serial.files
    assert parallel.findings == serial.findings
    assert parallel.content_hash == serial.content_hash
    assert seen == [f.path for f in serial.files]


def test_aliases_of_one_value_in_several_manifests_are_merged_in_order(tmp_path: Path) -> None:
    def manifest(*aliases: str) -> dict[str, object]:
        return {"version": "1", "taxonomy": {"language": {"properties": {"go": {"aliases": list(aliases)}}}}}

    write(tmp_path, {".docs-mcp.json": manifest("golang"), "x/.docs-mcp.json": manifest("go-lang", "golang")})
    assert load_corpus(tmp_path).taxonomy["language"].aliases == {"go": ("golang", "go-lang")}
