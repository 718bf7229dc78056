"""Fuzzing validate's input: generated hostile markdown, front matter, hint comments and manifests
never raise, never hang (per-test timeouts) and never print an unbounded line; a good page beside them
chunks exactly as it does alone. Bounded for CI (see ``hostile_strategies.examples``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hostile_strategies import (
    FRONT_MATTER,
    FRONT_MATTER_SHAPES,
    LONG_HEADING,
    MANIFEST,
    MANIFEST_BYTES,
    MARKDOWN,
    PAGE_BYTES,
    examples,
    fuzz_timeout,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.chunk.chunking import chunk_file
from docs_mcp.chunk.chunks import FileSettings
from docs_mcp.corpus.docs_manifest import parse_manifest
from docs_mcp.corpus.loader import load_corpus
from docs_mcp.errors import Finding
from docs_mcp.limits import MAX_REPEATED_HEADING_CHARS, MIN_MAX_CHUNK_SIZE
from docs_mcp.parse.front_matter import read_front_matter
from docs_mcp.parse.markdown import FrontMatter
from docs_mcp.parse.reporter import Reporter
from docs_mcp.parse.strategy import Strategy

pytestmark = pytest.mark.timeout(fuzz_timeout(120))
FUZZ = settings(max_examples=examples(150), suppress_health_check=[HealthCheck.too_slow])
MAX_LINE = 1_000  # characters of one printed finding, whatever the input

GOOD_MANIFEST = '{"version": "1", "strategy": {"chunk_by": "h2"}, "metadata": {"scope": "guide"}}'
GOOD_PAGE = "# Good\n\nIntro.\n\n## Install\n\nRun the installer.\n\n## Use\n\nCall it.\n"


def assert_reported_briefly(findings: list[Finding]) -> None:
    for finding in findings:
        assert finding.severity in ("error", "warning")
        assert len(finding.format()) < MAX_LINE, finding.format()[:300]


@FUZZ
@given(text=MARKDOWN)
def test_any_markdown_chunks_or_is_reported_never_a_traceback(text: str) -> None:
    chunked = chunk_file(text, "fuzz.md", FileSettings())
    assert_reported_briefly(chunked.findings)


@FUZZ
@given(
    headings=st.lists(LONG_HEADING, min_size=1, max_size=3),
    body=st.integers(0, 30_000).map(lambda size: "word " * (size // 5)),
    max_size=st.integers(MIN_MAX_CHUNK_SIZE, 5_000),
)
def test_what_each_chunk_repeats_of_its_headings_is_bounded(
    headings: list[str], body: str, max_size: int
) -> None:
    """The memory model: a chunk repeats at most MAX_REPEATED_HEADING_CHARS of each heading above it
    (heading, breadcrumb, title, id slug, embedding input), however long the heading and however many
    parts it is cut into; before issue 19 an 8 MB heading took 6.4 GB."""
    text = "\n\n".join(f"{heading}\n\n{body}" for heading in headings)
    chunked = chunk_file(text, "fuzz.md", FileSettings(strategy=Strategy(max_chunk_size=max_size)))
    bound = 2 * (len(headings) + 2) * (MAX_REPEATED_HEADING_CHARS + 1) + 100
    for chunk in chunked.chunks:
        repeated = len(chunk.heading) + sum(map(len, chunk.breadcrumb)) + len(chunk.title) + len(chunk.id)
        assert repeated <= bound and len(chunk.embedding_input) - len(chunk.text) <= bound, chunk.id[:80]
        assert len(chunk.markdown) <= max_size


@FUZZ
@given(yaml=FRONT_MATTER)
def test_any_front_matter_is_read_or_is_one_finding(yaml: str) -> None:
    report = Reporter("fuzz.md")
    read_front_matter(FrontMatter(yaml, 1, yaml.count("\n") + 3), report)
    assert_reported_briefly(report.findings)


@FUZZ
@given(text=MANIFEST, paths=st.lists(st.text(max_size=30), max_size=4))
def test_any_manifest_parses_or_is_reported_and_resolves_any_path(text: str, paths: list[str]) -> None:
    manifest, findings = parse_manifest(text.encode("utf-8", "surrogatepass"), ".docs-mcp.json")
    assert_reported_briefly(findings)
    for path in paths:
        manifest.settings_for(path)


def _good_chunks() -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "good").mkdir()
        (root / "good" / ".docs-mcp.json").write_text(GOOD_MANIFEST)
        (root / "good" / "page.md").write_text(GOOD_PAGE)
        return [
            (c.id, c.text, tuple(c.metadata.items())) for c in load_corpus(root, workers=1).files[0].chunks
        ]


GOOD_ALONE = _good_chunks()


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow])
@given(
    pages=st.dictionaries(
        st.sampled_from(["a.md", "b.md", "sub/c.md", "sub/deep/d.md"]), MARKDOWN, max_size=3
    ),
    root_manifest=st.one_of(st.none(), MANIFEST),
    sub_manifest=st.one_of(st.none(), MANIFEST),
)
def test_a_hostile_folder_never_raises_and_leaves_a_good_page_as_it_is(
    pages: dict[str, str], root_manifest: str | None, sub_manifest: str | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = {**pages, "good/.docs-mcp.json": GOOD_MANIFEST, "good/page.md": GOOD_PAGE}
        if root_manifest is not None:
            files[".docs-mcp.json"] = root_manifest
        if sub_manifest is not None:
            files["sub/.docs-mcp.json"] = sub_manifest
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(text.encode("utf-8", "surrogatepass"))
        corpus = load_corpus(root, workers=1)
    assert_reported_briefly(corpus.findings)
    assert {f.path for f in corpus.findings} <= {*files, ""}
    good = next(file for file in corpus.files if file.path == "good/page.md")
    assert [(c.id, c.text, tuple(c.metadata.items())) for c in good.chunks] == GOOD_ALONE


@FUZZ
@given(data=MANIFEST_BYTES, paths=st.lists(st.sampled_from(["a.md", "sub/b.md", "x/y/z.md"]), max_size=3))
def test_a_wrong_shaped_or_torn_manifest_is_findings_naming_the_file_never_a_traceback(
    data: bytes, paths: list[str]
) -> None:
    """Lists, objects, bools and huge numbers where a manifest expects a scalar, and a manifest cut at
    any byte (mid-character too): parsed or reported, in one short line each."""
    manifest, findings = parse_manifest(data, ".docs-mcp.json")
    assert_reported_briefly(findings)
    assert all(finding.path == ".docs-mcp.json" for finding in findings)
    for path in paths:
        manifest.settings_for(path)


@FUZZ
@given(yaml=FRONT_MATTER_SHAPES)
def test_wrong_shaped_front_matter_keys_are_read_or_are_one_finding(yaml: str) -> None:
    report = Reporter("fuzz.md")
    read_front_matter(FrontMatter(yaml, 1, yaml.count("\n") + 3), report)
    assert_reported_briefly(report.findings)
    chunked = chunk_file(f"---\n{yaml}\n---\n# A\n\nBody.\n\n## B\n\nMore.\n", "fuzz.md", FileSettings())
    assert_reported_briefly(chunked.findings)


@settings(max_examples=examples(60), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(
    pages=st.dictionaries(st.sampled_from(["a.md", "sub/c.md"]), PAGE_BYTES, max_size=2),
    manifest=st.one_of(st.none(), MANIFEST_BYTES),
)
def test_a_folder_of_wrong_shaped_torn_and_huge_files_leaves_a_good_page_as_it_is(
    pages: dict[str, bytes], manifest: bytes | None
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        files = {**pages, "good/.docs-mcp.json": GOOD_MANIFEST.encode(), "good/page.md": GOOD_PAGE.encode()}
        if manifest is not None:
            files["sub/.docs-mcp.json"] = manifest
        for name, data in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)
        corpus = load_corpus(root, workers=1)
    assert_reported_briefly(corpus.findings)
    assert {f.path for f in corpus.findings} <= {*files, ""}
    good = next(file for file in corpus.files if file.path == "good/page.md")
    assert [(c.id, c.text, tuple(c.metadata.items())) for c in good.chunks] == GOOD_ALONE
