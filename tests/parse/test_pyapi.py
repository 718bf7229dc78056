"""API reference from source (``docs_mcp.parse.pyapi``, ``api_stubs``): the package of
``tests/data/apipkg`` read statically with griffe (it raises if imported), in both markups."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from docs_mcp.parse.api_stubs import expand_api_stubs
from docs_mcp.parse.pyapi import ApiEntry, ApiOptions, ApiSource

SOURCE = Path(__file__).parents[1] / "data" / "apipkg" / "src"


@pytest.fixture(scope="module")
def api() -> ApiSource:
    return ApiSource([SOURCE])


def _walk(entry: ApiEntry) -> list[str]:
    return [entry.anchor, *(anchor for child in entry.children for anchor in _walk(child))]


def test_a_class_with_its_signature_sections_and_public_documented_members(api: ApiSource) -> None:
    entry, problem = api.document("acme.client.Client", ApiOptions(), "markdown")
    assert problem is None and entry is not None
    # ``close`` has no docstring, ``_reconnect`` is private, ``ping`` is inherited: none shown.
    assert _walk(entry) == ["acme.client.Client", "acme.client.Client.timeout", "acme.client.Client.send"]
    assert entry.body[:3] == ["```python", "class Client(url: str, *, timeout: float = 5.0)", "```"]
    send = "\n".join(entry.children[1].body)
    assert "def send(request: str, retries: int = 3) -> str" in send
    assert "- `retries` (`int`), default `3`: How many times a failed send is tried again." in send
    assert "**Returns:**\n\n- `str`: The answer body." in send
    assert "- `TimeoutError`: No answer came within the client's timeout." in send
    assert "acme" not in sys.modules and "acme.client" not in sys.modules, "the package was imported"


def test_inherited_members_numpy_and_sphinx_docstrings_and_the_current_module(api: ApiSource) -> None:
    entry, _ = api.document("Client", ApiOptions(members=True, inherited=True), "rst", "acme")
    assert entry is not None and entry.anchor == "acme.Client"
    ping = next(child for child in entry.children if child.name == "ping")
    assert "- ``payload`` (``bytes``), default ``b''``: Bytes sent and echoed back." in ping.body
    assert ".. code-block:: python" in ping.body
    fetch, _ = api.document("acme.legacy.fetch", ApiOptions(), "rst")
    assert fetch is not None
    body = "\n".join(fetch.body)
    assert "- ``key``: The key to look up." in body and ".. versionadded:: 1.2" in body
    markdown, _ = api.document("acme.legacy.fetch", ApiOptions(), "markdown")
    assert markdown is not None and ".. " not in "\n".join(markdown.body)


def test_a_module_shows_its_exports_and_listed_members_in_their_order(api: ApiSource) -> None:
    entry, _ = api.document("acme", ApiOptions(), "markdown")
    assert entry is not None
    assert {child.name for child in entry.children} == {"Client", "connect", "fetch"}
    listed, _ = api.document("acme", ApiOptions(members=("connect", "Client")), "markdown")
    assert listed is not None and [child.name for child in listed.children] == ["connect", "Client"]
    helpers, _ = api.document("acme.ns.helpers.slugify", ApiOptions(), "markdown")
    assert helpers is not None and "def slugify(text: str) -> str" in helpers.body


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("acme.nothing", "no object 'acme.nothing'"),
        ("zzz.thing", "package 'zzz' not found"),
    ],
)
def test_what_cannot_be_resolved_is_a_reason(api: ApiSource, target: str, why: str) -> None:
    entry, problem = api.document(target, ApiOptions(), "markdown")
    assert entry is None and problem is not None and why in problem


def test_a_module_that_does_not_parse_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    shutil.copytree(SOURCE, tmp_path / "src")
    (tmp_path / "src" / "acme" / "broken.py").write_text("def broken(:\n    pass\n", encoding="utf-8")
    api = ApiSource([tmp_path / "src"])
    entry, problem = api.document("acme.broken.broken", ApiOptions(), "markdown")
    assert entry is None and problem is not None and "no object 'acme.broken.broken'" in problem
    assert api.document("acme.connect", ApiOptions(), "markdown")[0] is not None


def test_no_source_folder_is_a_reason_not_a_crash() -> None:
    entry, problem = ApiSource([SOURCE / "missing"]).document("acme", ApiOptions(), "markdown")
    assert entry is None and problem == "no Python source folder to read 'acme' from"


def test_mkdocstrings_and_mkautodoc_stubs_expand_with_their_options(api: ApiSource) -> None:
    page = (
        "# Reference\n\n"
        "::: acme.client.Client\n"
        "    options:\n"
        "      show_root_heading: true\n"
        "      members:\n"
        "        - send\n\n"
        "```\n::: acme.in_code\n```\n\n"
        "::: acme.connect\n"
        "    :docstring:\n\n"
        "::: acme.nothing\n"
        "Closing words.\n"
    )
    expanded = expand_api_stubs(page, api.document)
    lines = expanded.text.split("\n")
    assert (expanded.resolved, expanded.unresolved) == (2, 1)
    assert [(note.line, note.rule) for note in expanded.notes] == [(16, "api-unresolved")]
    assert "## `Client`" in lines and "### `send`" in lines and "timeout: float = 5.0" not in lines
    assert expanded.heading_ids[lines.index("## `Client`") + 1] == "acme.client.Client"
    assert expanded.heading_ids[lines.index("### `send`") + 1] == "acme.client.Client.send"
    assert "::: acme.in_code" in lines and "::: acme.nothing" in lines  # code, and the unresolved stub
    assert "Open a connection to an Acme server." in lines and "options:" not in expanded.text
    assert expanded.origins[lines.index("### `send`")] == 3
    assert expanded.origins[lines.index("Closing words.")] == 17
    assert len(expanded.origins) == len(lines)


def test_stubs_over_a_package_not_in_the_folder_are_one_finding_a_page(api: ApiSource) -> None:
    page = "# API\n\n::: httpx.request\n    :docstring:\n\n::: httpx.get\n    :docstring:\n"
    expanded = expand_api_stubs(page, api.document)
    assert expanded.unresolved == 2 and len(expanded.notes) == 1
    note = expanded.notes[0]
    assert (note.line, note.rule) == (3, "api-unresolved")
    assert note.message.startswith("2 API references could not be resolved, the first ::: httpx.request: ")
    assert "package 'httpx' not found" in note.message


def test_a_file_outside_the_repository_folder_is_never_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(
        '"""TOP SECRET docstring."""\n\n\ndef leak() -> None:\n    """Leak."""\n'
    )
    repo = tmp_path / "repo"
    shutil.copytree(SOURCE, repo / "src")
    (repo / "src" / "acme" / "secret.py").symlink_to(outside / "secret.py")
    (repo / "src" / "extra.pth").write_text(f"{outside}\n")
    api = ApiSource([repo / "src"], root=repo)
    entry, problem = api.document("acme.connect", ApiOptions(), "markdown")
    assert entry is None and problem is not None and "outside the repository folder" in problem
    entry, problem = api.document("secret.leak", ApiOptions(), "markdown")
    assert entry is None and problem is not None
