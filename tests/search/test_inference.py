"""Facet values named in the query rank their hits first; an explicit argument always wins."""

from __future__ import annotations

import pytest

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.inference import Vocabulary, words
from docs_mcp.search.types import SearchRequest
from testkit.index_fixtures import SDK_FILES, write_docs

pytestmark = pytest.mark.timeout(120)

LANGUAGES = {"language": ["csharp", "go", "java", "python", "typescript"], "api": ["dub", "mistral"]}
VOCABULARY = Vocabulary(LANGUAGES, {"language": {"java": ["jvm"]}}, "language")


@pytest.mark.parametrize(
    ("query", "inferred"),
    [
        ("retry configuration typescript", {"language": "typescript"}),
        ("retries in TS", {"language": "typescript"}),
        ("how do I create a link in python", {"language": "python"}),
        ("create a folder in golang", {"language": "go"}),
        ("count links with the go sdk", {"language": "go"}),
        ("install the sdk for go", {"language": "go"}),
        ("error handling node.js dub sdk", {"language": "typescript", "api": "dub"}),
        ("C# client retries", {"language": "csharp"}),
        ("dotnet pagination", {"language": "csharp"}),
        ("jvm retries", {"language": "java"}),
        ("list models mistral python", {"language": "python", "api": "mistral"}),
        # an ambiguous language word after another value's name: the API named before its language
        ("what fields does the Link model have in dub go", {"language": "go", "api": "dub"}),
    ],
)
def test_a_value_its_aliases_and_built_in_language_names_are_recognised(
    query: str, inferred: dict[str, str]
) -> None:
    assert VOCABULARY.infer(query, explicit=()) == inferred


@pytest.mark.parametrize(
    "query",
    [
        "how do I go to the next page",  # "go" as a verb: no cue word beside it
        "let's go",
        "python or typescript retries",  # two values of one facet: ambiguous
        "pythonic retries",  # a word containing a value is not the value
        "retries",
    ],
)
def test_ordinary_words_and_ambiguous_queries_infer_nothing(query: str) -> None:
    assert VOCABULARY.infer(query, explicit=()) == {}


def test_a_facet_the_caller_set_is_never_inferred() -> None:
    assert VOCABULARY.infer("retries in python with dub", explicit={"language"}) == {"api": "dub"}


def test_javascript_names_only_mean_typescript_when_the_index_has_no_javascript() -> None:
    both = Vocabulary({"language": ["javascript", "typescript"]}, {}, "language")
    assert both.infer("node.js retries", ()) == {"language": "javascript"}
    assert VOCABULARY.infer("node.js retries", ()) == {"language": "typescript"}


def test_built_in_synonyms_apply_to_the_language_facet_only() -> None:
    other = Vocabulary({"runtime": ["go", "python"]}, {}, "language")
    assert other.infer("golang in production", ()) == {}
    assert other.infer("python in production", ()) == {"runtime": "python"}


def test_words_keep_language_names_whole() -> None:
    assert words("Node.js, C# and C++ in TS") == ("node.js", "c#", "and", "c++", "in", "ts")


# -- on a real index ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sdk_index(tmp_path_factory: pytest.TempPathFactory) -> DocsIndex:
    root = tmp_path_factory.mktemp("sdk")
    build(BuildOptions(docs_dir=write_docs(root / "docs", SDK_FILES), out=root / "out"))
    return DocsIndex.open(root / "out")


def test_the_named_language_ranks_first_and_the_rest_follow(sdk_index: DocsIndex) -> None:
    page = sdk_index.search(SearchRequest("retry configuration typescript", limit=50))
    assert page.inferred_filters == {"language": "typescript"}
    languages = [hit.facets.get("language") for hit in page.hits]
    first_other = next(i for i, language in enumerate(languages) if language not in ("typescript", None))
    assert languages[0] == "typescript"
    assert set(languages[:first_other]) <= {"typescript", None}  # the language's hits and global guides
    assert "python" in languages[first_other:], "the rest is ranked after, not dropped"
    top = page.hits[0]
    assert top.chunk_id == "typescript/README.md#acme-typescript-sdk/retry-configuration"
    assert {v.value for v in top.also_in if v.facet == "language"} == {"go", "java", "python"}  # still folded


def test_a_declared_alias_names_its_value(sdk_index: DocsIndex) -> None:
    page = sdk_index.search(SearchRequest("jvm retry configuration", limit=3))
    assert page.inferred_filters == {"language": "java"}
    assert page.hits[0].facets["language"] == "java"


def test_an_explicit_argument_wins_over_the_query(sdk_index: DocsIndex) -> None:
    page = sdk_index.search(
        SearchRequest("retry configuration typescript", filters={"language": "python"}, limit=50)
    )
    assert page.inferred_filters == {}
    assert {hit.facets.get("language", "python") for hit in page.hits} == {"python"}


def test_pages_of_an_inferred_search_are_stable(sdk_index: DocsIndex) -> None:
    query = "widget operation in go"
    whole = sdk_index.search(SearchRequest(query, limit=50)).hits
    paged = []
    while True:
        page = sdk_index.search(SearchRequest(query, limit=4, offset=len(paged)))
        paged += page.hits
        if not page.has_more:
            break
    assert [h.chunk_id for h in paged] == [h.chunk_id for h in whole]
    assert whole[0].facets["language"] == "go"


# -- words that named a filter value are not match terms (issue 31) ----------------------------------


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("how do I create a short link in python", "how do I create a short link in"),
        # the noun right after a named value names the SDK itself: it goes with it
        ("count links with the go sdk", "count links with the"),
        ("error handling node.js dub sdk", "error handling"),
        ("set a timeout in the dub python client", "set a timeout in the"),
        ("the sdk for go", "the sdk for"),  # "sdk" does not follow the name
        ("Retries in TS!", "Retries in !"),
        ("python", "python"),  # nothing else left: the query as written
        ("go to the next page", "go to the next page"),  # named nothing
    ],
)
def test_words_naming_an_inferred_value_leave_the_match_terms(query: str, terms: str) -> None:
    assert VOCABULARY.without_names(query, VOCABULARY.infer(query, explicit=())) == terms


def test_a_raw_folder_infers_the_language_and_its_name_stops_matching(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """No manifest: the layout gives ``language``; "python" then filters, and no longer favours the
    Python page that says "python" the most over the one about creating links."""
    root = tmp_path_factory.mktemp("raw")
    files = {
        "sdk/python/links.md": (
            "# Links\n\n## create\n\nCreate a short link.\n\n```python\nsdk.links.create()\n```\n"
        ),
        "sdk/python/install.md": "# Install\n\n## Python versions\n\nPython 3.9 to Python 3.13; a venv.\n",
        "sdk/go/links.md": "# Links\n\n## Create\n\nCreate a short link.\n\n```go\nsdk.Links.Create()\n```\n",
    }
    build(BuildOptions(docs_dir=write_docs(root / "docs", files), out=root / "out"))
    index = DocsIndex.open(root / "out")
    page = index.search(SearchRequest("create a link in python", limit=3))
    assert page.inferred_filters == {"language": "python"}
    # The page that only says "python" is not a match; Go's copy folds into the hit.
    assert [hit.chunk_id for hit in page.hits] == ["sdk/python/links.md#links/create"]
    assert [variant.chunk_id for variant in page.hits[0].also_in] == ["sdk/go/links.md#links/create"]
