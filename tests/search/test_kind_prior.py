"""The ``kind`` prior: how-to questions find operations before type pages; type questions find types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.kind_prior import KindPrior, asks_for_a_type
from docs_mcp.search.types import SearchRequest
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)

OPERATION = """# Audio

## stream

Returns events as they arrive.

### Example Usage

```python
res = client.listen(f)
```

### Parameters

| Parameter | Type | Required | Description |
| --------- | ---- | -------- | ----------- |
| `file` | File | yes | What to transcribe. |

### Response

**Events**
"""


def model(name: str, words: str) -> str:
    return (
        f"# {name}\n\n{words}\n\n## Fields\n\n| Field | Type | Required | Description |\n"
        "| ----- | ---- | -------- | ----------- |\n"
        f"| `file` | File | yes | The audio file of a {words}. |\n"
    )


FILES = {
    "python/docs/sdks/audio/README.md": OPERATION,
    **{
        f"python/docs/models/transcriptionstream{n}.md": model(
            f"TranscriptionStream{n}", "Stream a transcription of an audio file. " * 3
        )
        for n in ("request", "events", "done")
    },
    # Other pages, so that the words of the question are rare enough to count.
    **{f"python/docs/models/other{n}.md": model(f"Other{n}", "Something else entirely.") for n in range(12)},
}


@pytest.mark.parametrize(
    ("query", "typed"),
    [
        ("stream a transcription of an audio file", False),
        ("configure retries in python", False),
        ("what fields does the transcription response have", True),
        ("what does the rate limit exceeded error contain", True),
        ("TranscriptionStreamDone", True),
    ],
)
def test_questions_about_types_are_told_from_how_to_questions(query: str, typed: bool) -> None:
    assert asks_for_a_type(query) is typed


def test_factors_reorder_only_hits_with_a_listed_kind() -> None:
    kinds = {"a": "model", "b": "operation", "c": None}
    prior = KindPrior(how_to={"model": 0.5}, type_question={"operation": 0.5})
    ranked = [("a", 10.0), ("b", 8.0), ("c", 6.0)]
    assert prior.apply(ranked, "stream audio", kinds.get) == [("b", 8.0), ("c", 6.0), ("a", 5.0)]
    assert prior.apply(ranked, "fields of a", kinds.get) == [("a", 10.0), ("c", 6.0), ("b", 4.0)]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("kinds")
    build(BuildOptions(docs_dir=write_docs(root / "docs", FILES), out=root / "out"))
    return root / "out"


def test_a_how_to_question_finds_the_operation_before_the_type_pages(index: Path) -> None:
    query = SearchRequest("get a transcription of an audio file", limit=4)
    hits = DocsIndex.open(index).search(query).hits
    assert hits[0].chunk_id == "python/docs/sdks/audio/README.md#audio/stream"
    assert hits[0].facets["kind"] == "operation"  # shown with the hit
    unprimed = DocsIndex.open(index, config=SearchConfig(kind_prior=None)).search(query).hits
    assert unprimed[0].facets["kind"] == "model", "without the prior the type pages win"


def test_a_question_about_a_type_finds_its_page(index: Path) -> None:
    hits = DocsIndex.open(index).search(SearchRequest("fields of TranscriptionStreamDone", limit=3)).hits
    assert hits[0].file_path == "python/docs/models/transcriptionstreamdone.md"
    assert hits[0].facets["kind"] == "model"


def test_a_manifest_sets_the_kind(tmp_path: Path) -> None:
    manifest = {
        "version": "1",
        "overrides": [{"pattern": "python/docs/models/*.md", "metadata": {"kind": "guide"}}],
    }
    docs = write_docs(tmp_path / "docs", {**FILES, ".docs-mcp.json": json.dumps(manifest)})
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    opened = DocsIndex.open(tmp_path / "out")
    assert opened.facets["kind"] == ["guide", "operation"]
