"""Hostile and broken docs folders: each case of issue 13 is a finding with a file, a line and what to
do, in bounded time; never a traceback, a hang or a blow-up of memory."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from docs_mcp.corpus.loader import Corpus, load_corpus
from docs_mcp.errors import Finding
from docs_mcp.limits import (
    MAX_FILE_BYTES,
    MAX_FRONT_MATTER_BYTES,
    MAX_FRONT_MATTER_DEPTH,
    MAX_FRONT_MATTER_VALUES,
    MAX_JSON_DEPTH,
    MAX_MANIFEST_BYTES,
)

# Generous for a loaded 2-core machine; each case took from 13 s to forever before the fix.
pytestmark = pytest.mark.timeout(30)

BODY = "# Title\n\nSome text.\n"
BILLION_LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


def load(root: Path, files: dict[str, str | bytes]) -> Corpus:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return load_corpus(root)


def only_error(corpus: Corpus, rule: str) -> Finding:
    errors = corpus.errors
    assert [f.rule for f in errors] == [rule], [f.format() for f in errors]
    assert len(errors[0].format()) < 400  # a short line, whatever the input's size
    return errors[0]


def front(yaml: str) -> str:
    return f"---\n{yaml}\n---\n{BODY}"


@pytest.mark.parametrize(
    ("yaml", "value", "kind"),
    [
        ("date: 2024-02-30", "2024-02-30", "timestamp"),
        ('count: !!int "abc"', "abc", "int"),
        ('ratio: !!float "zz"', "zz", "float"),
        ("at: 2024-01-01 25:61:61", "2024-01-01 25:61:61", "timestamp"),
        ("big: " + "9" * 5000, "9999", "int"),
    ],
    ids=["impossible-date", "int-tag-on-text", "float-tag-on-text", "impossible-time", "int-of-5000-digits"],
)
def test_a_front_matter_value_yaml_cannot_build_is_a_finding_at_its_line(
    tmp_path: Path, yaml: str, value: str, kind: str
) -> None:
    corpus = load(tmp_path, {"a.md": front("title: T\n" + yaml)})
    finding = only_error(corpus, "invalid-frontmatter")
    assert (finding.path, finding.line) == ("a.md", 3)
    assert value in finding.message and f"not a valid {kind}" in finding.message
    assert "quote it" in finding.message


def test_a_control_character_in_front_matter_is_a_finding_not_a_reader_error(tmp_path: Path) -> None:
    corpus = load(tmp_path, {"a.md": front("title: T\nnote: a\x0cb")})
    finding = only_error(corpus, "invalid-frontmatter")
    assert finding.line == 3
    assert "U+000C" in finding.message and "remove it" in finding.message


@pytest.mark.parametrize("opening", ["[", "{", "- "], ids=["flow-lists", "flow-maps", "block-lists"])
def test_front_matter_nested_thousands_deep_is_a_finding_not_a_recursion_error(
    tmp_path: Path, opening: str
) -> None:
    nested = (
        "x: " + opening * 5000
        if opening != "- "
        else "x:\n" + "".join(" " * level + "-\n" for level in range(200))
    )
    corpus = load(tmp_path, {"a.md": front(nested)})
    finding = only_error(corpus, "invalid-frontmatter")
    assert f"more than {MAX_FRONT_MATTER_DEPTH} levels" in finding.message


@pytest.mark.parametrize("key", ["title", "metadata", "mcp_strategy", "mcp_metadata"])
def test_billion_laughs_front_matter_is_refused_before_it_is_expanded(tmp_path: Path, key: str) -> None:
    expanded = {"title": "*i", "metadata": "{x: *i}", "mcp_strategy": "{chunk_by: *i}", "mcp_metadata": "*i"}
    corpus = load(tmp_path, {"a.md": front(BILLION_LAUGHS + f"{key}: {expanded[key]}")})
    finding = only_error(corpus, "invalid-frontmatter")
    assert f"more than {MAX_FRONT_MATTER_VALUES:,} values" in finding.message
    assert "aliases" in finding.message


def test_an_alias_inside_its_own_collection_is_a_finding(tmp_path: Path) -> None:
    corpus = load(tmp_path, {"a.md": front("loop: &a [1, *a]")})
    assert "cycle" in only_error(corpus, "invalid-frontmatter").message


def test_aliases_within_the_limit_still_work(tmp_path: Path) -> None:
    corpus = load(tmp_path, {"a.md": front("base: &b {stability: beta}\nmetadata: *b")})
    assert corpus.errors == [] or [f.rule for f in corpus.errors] == ["unknown-metadata-key"]
    assert corpus.files[0].chunks[0].metadata.get("stability") == "beta"


def test_oversized_front_matter_is_a_finding_naming_the_limit(tmp_path: Path) -> None:
    corpus = load(tmp_path, {"a.md": front("title: T\nnote: " + "x" * MAX_FRONT_MATTER_BYTES)})
    assert "MAX_FRONT_MATTER_BYTES" in only_error(corpus, "invalid-frontmatter").message


def test_a_value_quoted_in_a_finding_is_cut_short(tmp_path: Path) -> None:
    corpus = load(tmp_path, {"a.md": front("title: [" + ", ".join(["x" * 1000] * 50) + "]")})
    finding = only_error(corpus, "invalid-frontmatter")
    assert finding.message.startswith("title must be a string") and len(finding.message) < 200


def test_a_hint_comment_with_json_nested_thousands_deep_is_a_finding(tmp_path: Path) -> None:
    hint = "<!-- mcp_chunking_hint: " + "[" * 5000 + "]" * 5000 + " -->\n"
    corpus = load(tmp_path, {"a.md": BODY + "\n" + hint})
    finding = only_error(corpus, "invalid-hint-json")
    assert finding.line == 5 and f"more than {MAX_JSON_DEPTH} levels" in finding.message


def test_a_hint_comment_with_a_long_run_of_spaces_is_read_in_linear_time(tmp_path: Path) -> None:
    hint = '<!-- mcp_chunking_hint: {"chunk_by": "h3"}' + " " * 200_000 + "x -->\n"
    corpus = load(tmp_path, {"a.md": hint + BODY})
    assert only_error(corpus, "invalid-hint-json").line == 1


def test_a_manifest_with_json_nested_thousands_deep_is_a_finding(tmp_path: Path) -> None:
    corpus = load(tmp_path, {".docs-mcp.json": "[" * 100_000 + "]" * 100_000, "a.md": BODY})
    finding = only_error(corpus, "invalid-manifest")
    assert finding.path == ".docs-mcp.json" and f"more than {MAX_JSON_DEPTH} levels" in finding.message


def test_a_manifest_integer_of_5000_digits_is_a_finding(tmp_path: Path) -> None:
    manifest = '{"version": "1",\n "strategy": {"max_chunk_size": ' + "9" * 5000 + "}}"
    corpus = load(tmp_path, {".docs-mcp.json": manifest, "a.md": BODY})
    finding = only_error(corpus, "invalid-manifest")
    assert finding.line == 2 and "5000 digits" in finding.message
    assert "set_int_max_str_digits" not in finding.message


def test_an_oversized_manifest_is_a_finding(tmp_path: Path) -> None:
    manifest = json.dumps({"version": "1", "mcpServerInstructions": "x" * MAX_MANIFEST_BYTES})
    corpus = load(tmp_path, {".docs-mcp.json": manifest, "a.md": BODY})
    assert "MAX_MANIFEST_BYTES" in only_error(corpus, "invalid-manifest").message


def test_a_manifest_with_many_unknown_keys_is_checked_in_linear_time(tmp_path: Path) -> None:
    manifest = {"version": "1", **{f"key{n}": n for n in range(20_000)}}
    corpus = load(tmp_path, {".docs-mcp.json": json.dumps(manifest, indent=1), "a.md": BODY})
    unknown = [f for f in corpus.warnings if f.rule == "unknown-manifest-key"]
    assert len(unknown) == 20_000 and unknown[-1].line == 20_002


def overrides(*patterns: str) -> str:
    return json.dumps(
        {"version": "1", "overrides": [{"pattern": p, "strategy": {"chunk_by": "h3"}} for p in patterns]},
        indent=1,
    )


def test_an_override_glob_with_a_backwards_range_is_a_finding(tmp_path: Path) -> None:
    corpus = load(tmp_path, {".docs-mcp.json": overrides("[z-a].md"), "a.md": BODY})
    finding = only_error(corpus, "invalid-manifest")
    assert finding.message.startswith("overrides[0].pattern: range z-a") and "a-z" in finding.message
    assert finding.line == 5


def test_an_override_glob_of_thirty_stars_then_x_matches_in_linear_time(tmp_path: Path) -> None:
    corpus = load(tmp_path, {".docs-mcp.json": overrides("*" * 30 + "x"), "a" * 22 + ".md": BODY})
    assert corpus.errors == []
    assert not corpus.files[0].strategy_explicit  # the pattern does not match: the default applies


def test_an_override_glob_longer_than_the_limit_is_a_finding(tmp_path: Path) -> None:
    corpus = load(tmp_path, {".docs-mcp.json": overrides("a" * 300 + ".md"), "a.md": BODY})
    assert "MAX_GLOB_LENGTH" in only_error(corpus, "invalid-manifest").message


def test_a_symlink_loop_is_a_read_error_not_a_runtime_error(tmp_path: Path) -> None:
    (tmp_path / "a.md").symlink_to("b.md")
    (tmp_path / "b.md").symlink_to("a.md")
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "self").symlink_to("..")
    corpus = load(tmp_path, {"ok.md": BODY})
    assert [(f.path, f.rule) for f in corpus.errors] == [
        ("a.md", "unreadable-file"),
        ("b.md", "unreadable-file"),
    ]
    assert "symbolic links" in corpus.errors[0].message
    assert [file.path for file in corpus.files] == ["ok.md"]


def test_a_fifo_named_like_markdown_is_skipped_with_a_warning_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p.md")
    corpus = load(tmp_path, {"ok.md": BODY})
    assert corpus.errors == []
    skipped = [f for f in corpus.warnings if f.rule == "not-a-regular-file"]
    assert [(f.path, f.message) for f in skipped] == [
        ("p.md", "a FIFO (named pipe), not a regular file; not indexed")
    ]
    assert [file.path for file in corpus.files] == ["ok.md"]


@pytest.mark.skipif(os.geteuid() != 0, reason="creating a device node needs root (CI runs as root)")
def test_a_character_device_named_like_markdown_is_skipped_not_read_until_memory_runs_out(
    tmp_path: Path,
) -> None:
    os.mknod(tmp_path / "zero.md", stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero
    corpus = load(tmp_path, {"ok.md": BODY})
    skipped = [(f.path, f.rule) for f in corpus.warnings if f.rule == "not-a-regular-file"]
    assert skipped == [("zero.md", "not-a-regular-file")]


def test_a_symlink_inside_the_root_to_a_fifo_is_skipped_too(tmp_path: Path) -> None:
    (tmp_path / "pipes").mkdir()
    os.mkfifo(tmp_path / "pipes" / "fifo")
    (tmp_path / "link.md").symlink_to("pipes/fifo")
    corpus = load(tmp_path, {"ok.md": BODY})
    assert [f.path for f in corpus.warnings if f.rule == "not-a-regular-file"] == ["link.md"]


def test_a_file_over_the_size_limit_is_an_error_naming_the_limit(tmp_path: Path) -> None:
    with (tmp_path / "huge.md").open("wb") as stream:
        stream.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    corpus = load(tmp_path, {"ok.md": BODY})
    finding = only_error(corpus, "file-too-large")
    assert finding.path == "huge.md" and "MAX_FILE_BYTES" in finding.message
    assert "split it" in finding.message


def test_long_runs_of_letters_and_digits_chunk_in_linear_time(tmp_path: Path) -> None:
    hex_words = " ".join(("0123456789abcdef" * 1200)[:19_000] for _ in range(10))
    corpus = load(tmp_path, {"a.md": "# Data\n\n" + hex_words + "\n"})
    assert corpus.errors == [] and len(corpus.files[0].chunks) > 1
