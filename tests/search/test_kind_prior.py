"""The ``kind`` prior: how-to questions find operations before type pages; type questions find types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.kind_prior import KindPrior, Role, action_word, asks_for_a_type, same_word
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
    roles = {"a": Role("model"), "b": Role("operation"), "c": Role(None)}
    prior = KindPrior(how_to={"model": 0.5}, type_question={"operation": 0.5})
    ranked = [("a", 10.0), ("b", 8.0), ("c", 6.0)]
    assert prior.apply(ranked, "stream audio", roles.get) == [("b", 8.0), ("c", 6.0), ("a", 5.0)]
    assert prior.apply(ranked, "fields of a", roles.get) == [("a", 10.0), ("c", 6.0), ("b", 4.0)]


@pytest.mark.parametrize(
    ("query", "action"),
    [
        ("how do I list the links in python", "list"),
        ("Archive a fine-tuned model", "archive"),
        ("retry configuration typescript", "retry"),
        ("how do I", None),
    ],
)
def test_a_question_leads_with_its_first_content_word(query: str, action: str | None) -> None:
    assert action_word(query) == action


@pytest.mark.parametrize(
    ("one", "other", "same"),
    [
        ("upload", "uploaded", True),
        ("retry", "retries", True),
        ("paginate", "pagination", True),
        ("transcribe", "transcription", True),
        ("get", "getting", False),  # too short to tell a form from another word
        ("list", "link", False),
        ("create", "delete", False),
    ],
)
def test_two_forms_of_one_word_are_told_from_two_words(one: str, other: str, same: bool) -> None:
    assert same_word(one, other) is same


def test_an_operation_or_topic_named_by_the_questions_first_word_is_raised() -> None:
    roles = {
        "finetuning/create/response": Role("operation", ("Response", "create")),
        "models/archive": Role("operation", ("archive",)),
        "models/archiverequest": Role("model", ("ArchiveModelRequest",)),
        "readme/retries": Role("topic", ("Retries",)),
        "pipelines/list": Role("operation", ("list",)),
    }
    prior = KindPrior(how_to={"model": 0.5}, type_question={}, named=2.0)
    ranked = [("finetuning/create/response", 10.0), ("models/archiverequest", 9.0), ("models/archive", 6.0)]
    assert [cid for cid, _ in prior.apply(ranked, "archive a fine-tuned model", roles.get)] == [
        "models/archive",  # 12: its own name is the action asked for
        "finetuning/create/response",
        "models/archiverequest",  # a type's name does not count
    ]
    ranked = [("pipelines/list", 10.0), ("readme/retries", 6.0)]
    assert prior.apply(ranked, "retry configuration", roles.get)[0] == ("readme/retries", 12.0)
    # A question about a type is not a how-to question: no name counts.
    assert prior.apply(ranked, "what fields does the retry configuration have", roles.get) == ranked
    assert prior.lowered("archive a model") == {"model"}


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


def test_an_operation_below_a_depth_of_type_pages_is_found_and_pages_stay_one_order(tmp_path: Path) -> None:
    # 60 type pages say every word of the question, more often than the operation does: the first
    # 50 full-text candidates are all type pages, so only the leg over the other kinds finds it.
    files = {
        "python/docs/sdks/audio/README.md": OPERATION,
        **{
            f"python/docs/models/streamaudio{n}.md": model(
                f"StreamAudioTranscription{n}", "Stream a transcription of an audio file. " * 4
            )
            for n in range(60)
        },
    }
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", files), out=tmp_path / "out"))
    index = DocsIndex.open(tmp_path / "out")
    query = "stream an audio transcription"
    whole = [hit.chunk_id for hit in index.search(SearchRequest(query, limit=30, mode="fulltext")).hits]
    assert whole[0] == "python/docs/sdks/audio/README.md#audio/stream"
    paged: list[str] = []
    while len(paged) < 30:
        page = index.search(SearchRequest(query, limit=3, offset=len(paged), mode="fulltext"))
        paged += [hit.chunk_id for hit in page.hits]
    assert paged == whole
    unprimed = DocsIndex.open(tmp_path / "out", config=SearchConfig(kind_prior=None))
    ranked = [h.chunk_id for h in unprimed.search(SearchRequest(query, limit=50, mode="fulltext")).hits]
    assert "python/docs/sdks/audio/README.md#audio/stream" not in ranked  # below the first 50


def _operation(resource: str, heading: str, words: str) -> str:
    """An operation section (as ``OPERATION``) of ``resource`` named ``heading`` that says ``words``."""
    return (
        OPERATION.replace("# Audio", f"# {resource}")
        .replace("## stream", f"## {heading}")
        .replace("Returns events as they arrive.", words)
    )


def test_the_other_kinds_are_not_ranked_when_they_cannot_change_the_page(
    tmp_path: Path, text_leg_filters: list[str | None]
) -> None:
    # Five operations named by the question, each in two languages (folded into one hit), score far
    # above 60 type pages; 20 other operations score below the type pages, so below the first 50
    # full-text candidates, but above them once the prior lowers the type pages.
    words = "Stream a transcription of an audio file."
    files = {
        **{
            f"{language}/docs/sdks/audio{n}/README.md": _operation(f"Audio{n}", "stream", words * 3)
            for language in ("python", "typescript")
            for n in range(5)
        },
        **{f"python/docs/models/payload{n}.md": model(f"Payload{n}", words) for n in range(60)},
        **{f"python/docs/sdks/other{n}/README.md": _operation(f"Other{n}", "list", words) for n in range(20)},
    }
    build(BuildOptions(docs_dir=write_docs(tmp_path / "docs", files), out=tmp_path / "out"))
    index = DocsIndex.open(tmp_path / "out")
    wheres = text_leg_filters
    query = "stream an audio transcription"
    first = index.search(SearchRequest(query, limit=3, mode="fulltext")).hits
    assert len(wheres) == 1, "no unfetched hit can reach the first page: one full-text query"
    assert [hit.chunk_id for hit in first] == [
        f"python/docs/sdks/audio{n}/README.md#audio{n}/stream" for n in range(3)
    ]
    assert [[variant.value for variant in hit.also_in] for hit in first] == [["typescript"]] * 3
    whole = [hit.chunk_id for hit in index.search(SearchRequest(query, limit=30, mode="fulltext")).hits]
    assert len(wheres) == 3, "a page past the named operations ranks the other kinds too"
    assert sorted(whole[5:25]) == sorted(
        f"python/docs/sdks/other{n}/README.md#other{n}/list" for n in range(20)
    )
    paged: list[str] = []
    while len(paged) < 30:
        page = index.search(SearchRequest(query, limit=3, offset=len(paged), mode="fulltext"))
        paged += [hit.chunk_id for hit in page.hits]
    assert paged == whole
