"""Hostile docs never cost a good index: a build that refuses them (or that they make crash) leaves the
previous index in place, byte for byte, answering as before; through the CLI, a clear error and no
traceback."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hostile_strategies import MANIFEST, MARKDOWN, examples, fuzz_timeout
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.cli.main import main
from docs_mcp.errors import ValidationFailed
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(240)

HOSTILE: dict[str, str] = {
    "bad-date.md": "---\ndate: 2024-02-30\n---\n# A\n",
    "laughs.md": "---\na: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))
    + "title: *i\n---\n# L\n",
    "deep-hint.md": "<!-- mcp_chunking_hint: " + "[" * 5000 + " -->\n# H\n",
    "glob/.docs-mcp.json": '{"version": "1", "overrides": [{"pattern": "[z-a].md"}]}',
    "glob/page.md": "# P\n",
}


def _snapshot(out: Path) -> tuple[bytes, list[str]]:
    hits = DocsIndex.open(out).search(SearchRequest("retries", limit=5)).hits
    return (out / MANIFEST_FILE).read_bytes(), [hit.chunk_id for hit in hits]


def test_hostile_docs_are_refused_with_findings_and_the_old_index_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = write_docs(tmp_path / "docs")
    out = tmp_path / "out"
    assert main(["build", "--docs-dir", str(docs), "--out", str(out), "--quiet"]) == 0
    before = _snapshot(out)
    write_docs(docs, HOSTILE)
    os.mkfifo(docs / "pipe.md")
    capsys.readouterr()

    assert main(["build", "--docs-dir", str(docs), "--out", str(out), "--quiet"]) == 1

    err = capsys.readouterr().err
    assert "Traceback" not in err and "nothing was built" in err
    for rule in ("invalid-frontmatter", "invalid-hint-json", "invalid-manifest", "not-a-regular-file"):
        assert f"[{rule}]" in err
    assert max(len(line) for line in err.splitlines()) < 400
    assert _snapshot(out) == before


@pytest.mark.timeout(fuzz_timeout(180))
@settings(max_examples=examples(12), suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(pages=st.dictionaries(st.sampled_from(["x.md", "sub/y.md"]), MARKDOWN, max_size=2), manifest=MANIFEST)
def test_a_build_of_generated_hostile_docs_succeeds_or_leaves_the_old_index(
    pages: dict[str, str], manifest: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        docs = write_docs(root / "docs")
        out = root / "out"
        build(BuildOptions(docs_dir=docs, out=out))
        before = _snapshot(out)
        for name, text in {**pages, "sub/.docs-mcp.json": manifest}.items():
            (docs / name).parent.mkdir(parents=True, exist_ok=True)
            (docs / name).write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            build(BuildOptions(docs_dir=docs, out=out))
        except ValidationFailed as refused:
            assert refused.findings and _snapshot(out) == before
        else:
            assert DocsIndex.open(out).search(SearchRequest("retries", limit=5)).hits
        assert [p.name for p in root.iterdir() if p.name.startswith(".")] == []  # no staging left
