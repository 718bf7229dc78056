"""A folder without manifests gets the facets its layout says (issue 31): ``language`` per SDK folder."""

from __future__ import annotations

import json
from pathlib import Path

from docs_mcp.corpus.loader import load_corpus

PY = "# Links\n\n## create\n\n```python\nclient.links.create()\n```\n"
GO = "# Links\n\n## Create\n\n```go\nclient.Links.Create()\n```\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def metadata(root: Path) -> dict[str, dict[str, str]]:
    return {file.path: dict(file.chunks[0].metadata) for file in load_corpus(root).files}


def test_language_folders_without_manifests_give_language_and_scope(tmp_path: Path) -> None:
    docs = write(
        tmp_path,
        {"api/python/links.md": PY, "api/go/links.md": GO, "guides/start.md": "# Start\n\nRead this.\n"},
    )

    corpus = load_corpus(docs)

    assert metadata(docs) == {
        "api/go/links.md": {"language": "go", "scope": "sdk-specific"},
        "api/python/links.md": {"language": "python", "scope": "sdk-specific"},
        "guides/start.md": {"scope": "global-guide"},
    }
    assert corpus.layout_facets == ["api/go", "api/python"]
    assert corpus.taxonomy["language"].vector_collapse
    assert corpus.manifests == {}  # nothing was written or pretended to be on disk
    assert not corpus.errors


def test_a_folder_with_a_manifest_keeps_what_it_declares(tmp_path: Path) -> None:
    docs = write(tmp_path, {"api/python/links.md": PY, "api/go/links.md": GO})
    (docs / ".docs-mcp.json").write_text(json.dumps({"version": "1", "metadata": {"team": "sdk"}}))

    assert metadata(docs) == {"api/go/links.md": {"team": "sdk"}, "api/python/links.md": {"team": "sdk"}}
    assert load_corpus(docs).layout_facets == []


def test_a_folder_without_language_folders_gets_no_facets(tmp_path: Path) -> None:
    docs = write(tmp_path, {"guide/intro.md": "# Intro\n\nHello.\n", "guide/more.md": PY})

    assert metadata(docs) == {"guide/intro.md": {}, "guide/more.md": {}}


def test_sdk_folders_in_two_parent_folders_give_each_its_api(tmp_path: Path) -> None:
    files = {"dub/python/links.md": PY, "dub/go/links.md": GO, "mistral/python/chat.md": PY}
    docs = write(tmp_path, {**files, "mistral/go/chat.md": GO})

    corpus = load_corpus(docs)

    assert metadata(docs) == {
        "dub/go/links.md": {"api": "dub", "language": "go", "scope": "sdk-specific"},
        "dub/python/links.md": {"api": "dub", "language": "python", "scope": "sdk-specific"},
        "mistral/go/chat.md": {"api": "mistral", "language": "go", "scope": "sdk-specific"},
        "mistral/python/chat.md": {"api": "mistral", "language": "python", "scope": "sdk-specific"},
    }
    assert set(corpus.taxonomy["api"].values or ()) == {"dub", "mistral"}


def test_sdk_folders_of_one_parent_name_no_api(tmp_path: Path) -> None:
    docs = write(tmp_path, {"dub/python/links.md": PY, "dub/go/links.md": GO})

    assert "api" not in load_corpus(docs).taxonomy
    assert metadata(docs)["dub/go/links.md"] == {"language": "go", "scope": "sdk-specific"}
