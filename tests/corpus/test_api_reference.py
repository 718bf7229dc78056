"""A site's API reference read from its Python source (``corpus/api_reference.py``) and its
reStructuredText pages (``parse/rst.py``), through ``load_corpus``: mkdocstrings stubs and Sphinx
autodoc become sections with stable ids and URLs, search paths come from the configs read as data,
and what cannot be resolved or read is a finding."""

from __future__ import annotations

import shutil
from pathlib import Path

from docs_mcp.corpus.loader import load_corpus
from docs_mcp.corpus.validation import validate
from testkit.index_fixtures import write_docs

PACKAGE = Path(__file__).parents[1] / "data" / "apipkg" / "src"


def _repo(tmp_path: Path, source_folder: str, files: dict[str, str]) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(PACKAGE, repo / source_folder)
    return write_docs(repo, files)


def test_a_mkdocstrings_stub_page_becomes_the_api_reference(tmp_path: Path) -> None:
    config = (
        "site_name: Acme\nsite_url: https://acme.dev/\nplugins:\n  - mkdocstrings:\n      handlers:\n"
        "        python:\n          paths: [lib/acme]\n          options:\n            heading_level: 2\n"
    )
    repo = _repo(
        tmp_path,
        "lib",
        {
            "mkdocs.yml": config,
            "docs/ref/client.md": "# `Client`\n\n::: acme.client.Client\n",
            "docs/ref/missing.md": "# Missing\n\n::: acme.missing\n",
            "docs/index.md": "# Acme\n\nSee the [`Client`][acme.client.Client].\n",
        },
    )
    corpus = load_corpus(repo / "docs")
    chunks = {chunk.id: chunk for chunk in corpus.chunks if chunk.file_path == "ref/client.md"}
    # Each object a chunk; ``timeout`` (a line of text) is under the minimum and joins ``Client``'s.
    assert list(chunks) == ["ref/client.md#client", "ref/client.md#client/send"]
    assert "Seconds to wait for an answer." in chunks["ref/client.md#client"].text
    send = chunks["ref/client.md#client/send"]
    assert send.heading == "send" and send.breadcrumb == ("Client",)
    assert "def send(request: str, retries: int = 3) -> str" in send.text
    assert "The request body." in send.text and (send.start_line, send.end_line) == (3, 3)
    assert corpus.urls["ref/client.md#client/send"] == "https://acme.dev/ref/client/#acme.client.Client.send"
    assert "ref/missing.md" not in {chunk.file_path for chunk in corpus.chunks}
    findings = {(f.path, f.line, f.rule) for f in corpus.findings}
    assert ("ref/missing.md", 3, "api-unresolved") in findings
    assert ("ref/missing.md", 0, "stub-page") in findings


def test_sphinx_rst_pages_with_autodoc_from_the_conf_py_search_path(tmp_path: Path) -> None:
    conf = "import os, sys\nsys.path.insert(0, os.path.abspath('../source'))\nproject = 'Acme'\n"
    api = (
        "API\n===\n\n.. module:: acme\n\nThe client\n----------\n\n"
        ".. autoclass:: Client\n   :members:\n   :inherited-members:\n\n"
        ".. autofunction:: fetch\n\n.. autofunction:: nothing_here\n"
    )
    guide = (
        "Guide\n=====\n\nCall :meth:`acme.Client.send` (see :ref:`the API <api>`, :doc:`api`).\n\n"
        ".. include:: ../../secret.txt\n\n.. literalinclude:: ../source/acme/legacy.py\n   :lines: 4\n"
    )
    write_docs(tmp_path, {"secret.txt": "TOP SECRET\n"})
    repo = _repo(tmp_path, "source", {"docs/conf.py": conf, "docs/api.rst": api, "docs/guide.rst": guide})
    corpus = load_corpus(repo / "docs")
    assert corpus.site.generator == "sphinx" and [file.path for file in corpus.files] == [
        "api.rst",
        "guide.rst",
    ]
    # A page of API entries with no strategy of its own is cut at every heading: a chunk an object
    # (a small one, ``timeout``, joins the one before it).
    assert [chunk.id for chunk in corpus.chunks] == [
        "api.rst#api/the-client/client",
        "api.rst#api/the-client/client/send",
        "api.rst#api/the-client/client/ping",
        "api.rst#api/the-client/fetch",
        "guide.rst#guide",
    ]
    text = "\n".join(chunk.text for chunk in corpus.chunks)
    assert "Measure the round trip to the server." in text and "Added in version 1.2" in text
    assert "Call acme.Client.send (see the API, API)." in text and "def fetch(key, default=None):" in text
    assert "TOP SECRET" not in text and ".. " not in text and ":meth:" not in text
    findings = {(f.path, f.line, f.rule) for f in corpus.findings}
    assert ("api.rst", 15, "api-unresolved") in findings and ("guide.rst", 6, "include-outside") in findings
    report = validate(repo / "docs")
    assert report.site_counts() == {"api-unresolved": 1, "include-outside": 1}
    # A strategy the author declares wins: members stay headings inside their section's chunk.
    write_docs(repo, {"docs/.docs-mcp.json": '{"version": "1", "strategy": {"chunk_by": "h2"}}'})
    chunks = load_corpus(repo / "docs").chunks
    assert [chunk.id for chunk in chunks] == ["api.rst#api/the-client", "guide.rst#guide"]
    assert "### Client" in chunks[0].markdown and "#### ping" in chunks[0].markdown


def test_rst_pages_are_read_only_for_sphinx_sites(tmp_path: Path) -> None:
    plain = {"docs/page.rst": "Title\n=====\n\nText.\n", "docs/a.md": "# A\n\nText.\n"}
    write_docs(tmp_path / "plain", plain)
    assert [file.path for file in load_corpus(tmp_path / "plain" / "docs").files] == ["a.md"]
