"""A search across libraries answered through their union index (issue 34, ``server.hub.union``): made
in the background by ``docs-mcp union``, used only for exactly the indexes served, its hits the
libraries' own sections; real indexes of claude-docs, the dub and mistral SDKs, the example docs and
a small SDK."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from library_fixtures import acme_index, claude_index, example_v1, example_v2, sdk_index, union_hub
from server_support import CURSOR_KEY

from docs_mcp.errors import DocsMcpError
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.indexing.union import union, union_key
from docs_mcp.search.types import SearchRequest
from docs_mcp.server.hub.opening import ReadyHub, open_hub
from docs_mcp.server.hub.specs import parse_index_specs
from docs_mcp.server.hub.union import UNION_ENV, UNIONS_DIR, UnionIndex, UnionMode
from docs_mcp.server.hub.union import union_key as server_union_key
from docs_mcp.server.tools.hub_tools import HubTools
from docs_mcp.server.tools.hub_union import union_for
from docs_mcp.store.cache_home import CACHE_ENV
from docs_mcp.store.index_manifest import read_manifest
from testkit.index_fixtures import SDK_FILES, write_docs
from testkit.library_set import labelled_sets, merged_figures, union_ready, union_set

__all__ = ["acme_index", "claude_index", "example_v1", "example_v2", "sdk_index"]  # fixtures used here

pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def union_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("union-cache")


@pytest.fixture(scope="module")
def hub(
    claude_index: Path,
    sdk_index: Path,
    example_v1: Path,
    example_v2: Path,
    acme_index: Path,
    union_cache: Path,
) -> Iterator[ReadyHub]:
    """The five-library hub with the union on (its cache the module's own), once the union is open."""
    specs = [
        f"claude-docs={claude_index}",
        f"sdks={sdk_index}",
        f"example={example_v1}",
        f"example={example_v2}",
        f"acme={acme_index}",
    ]
    with union_hub(specs, "rank", union_cache) as ready:
        yield ready


def _search(tools: HubTools, union: UnionMode, **arguments: Any) -> dict[str, Any]:
    with union_set(union):
        return tools.search_docs(arguments)[0]


def test_the_union_is_made_in_the_cache_under_the_key_of_the_indexes_served(
    hub: ReadyHub, union_cache: Path
) -> None:
    view = hub.hub.view()
    served = [(s.name, s.identity) for s in view.defaults()]
    assert server_union_key(served) == union_key(served)
    assert hub.hub.union is not None and hub.hub.union.status["union"] == union_key(served)
    folder = union_cache / UNIONS_DIR / union_key(served)
    manifest = read_manifest(folder)
    assert manifest.embedding is None
    assert manifest.chunk_count == sum(s.manifest.chunk_count for s in view.defaults())
    assert set(manifest.facets) == {f for s in view.defaults() for f in s.manifest.facets}


def test_ranked_hits_are_the_libraries_own_sections_and_pages_continue(hub: ReadyHub) -> None:
    """Each hit of the union's ranking is its library's section (id, file, heading, crumbs, facets),
    readable with get_doc; the next page continues the same ranking."""
    view = hub.hub.view()
    tools = HubTools(view)
    first = _search(tools, "rank", query="create a link", limit=5)
    assert first["mode"] == "fulltext" and len(first["hits"]) == 5 and first["next_cursor"]
    deeper = _search(tools, "rank", query="create a link", limit=10)
    second = _search(tools, "rank", cursor=first["next_cursor"])
    assert [h["chunk_id"] for h in first["hits"] + second["hits"]] == [h["chunk_id"] for h in deeper["hits"]]
    for hit in deeper["hits"]:
        own = view.resolve(hit["library"], None).state.index.sections([hit["chunk_id"]])[0]
        assert (hit["file"], hit["heading"], hit["breadcrumb"]) == (
            own.file_path,
            own.heading,
            list(own.breadcrumb),
        )
        assert hit.get("facets", {}) == dict(own.facets)
        window = tools.get_doc({"chunk_id": hit["chunk_id"], "library": hit["library"]})[0]
        assert window["chunk_id"] == hit["chunk_id"]


def test_filters_and_named_libraries_on_the_union(hub: ReadyHub) -> None:
    tools = HubTools(hub.hub.view())
    dub = _search(tools, "rank", query="create a link", api="dub", limit=10)
    assert dub["hits"] and {(h["library"], h["facets"]["api"]) for h in dub["hits"]} == {("sdks", "dub")}
    named = _search(tools, "rank", query="claude tool use", limit=5)
    assert named["inferred_filters"]["library"] == "claude-docs"
    assert {h["library"] for h in named["hits"]} == {"claude-docs"}
    inferred = _search(tools, "rank", query="mistral chat completion", limit=5)
    assert inferred["inferred_filters"] == {"api": "mistral"}
    assert {h["facets"].get("api") for h in inferred["hits"]} == {"mistral"}


def test_only_a_full_text_search_is_answered_from_the_union(hub: ReadyHub) -> None:
    """The union holds no vectors: a hybrid or vector search asks each library's own index; a
    fusion other than raw scores (or asking every library) needs each library's own scores."""
    view = hub.hub.view()
    assert union_for(view, SearchRequest(query="x", mode="fulltext"), exact_only=False) is not None
    assert union_for(view, SearchRequest(query="x"), exact_only=False) is not None
    for mode in ("hybrid", "vector"):
        assert union_for(view, SearchRequest(query="x", mode=mode), exact_only=False) is None
    assert union_for(view, SearchRequest(query="x"), exact_only=True) is None
    with union_set("off"):
        assert union_for(view, SearchRequest(query="x"), exact_only=False) is None


def test_routing_keeps_the_answers_of_asking_each_library(hub: ReadyHub, evaldata_dir: Path) -> None:
    """The union choosing the libraries asked (route) scores the labelled sets as the exact path does
    (each library's own ranking, merged); its hits carry each library's own scores."""
    view = hub.hub.view()
    sets = labelled_sets(evaldata_dir / "claude-docs" / "queries.jsonl", "claude-docs", "sdks")
    by_mode = merged_figures(view, sets, ("off", "route"))
    exact, routed = by_mode["off"], by_mode["route"]
    for name, (recall, mrr) in exact.items():
        assert routed[name][0] >= recall - 0.01 and routed[name][1] >= mrr - 0.01, (name, routed, exact)
    tools = HubTools(view)
    answer = _search(tools, "route", query="retry configuration typescript", limit=5)
    for hit in answer["hits"]:
        own = _search(tools, "off", query="retry configuration typescript", library=hit["library"], limit=10)
        assert hit["score"] in [h["score"] for h in own["hits"]]


def test_a_swapped_library_falls_back_until_its_union_is_made_again(
    acme_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuilt library changes the key: merged searches ask each library (never the old union's
    rows) until the new union is open, which then holds the new rows; a server started again over
    the same indexes opens the union it finds, without making it."""
    monkeypatch.setenv(UNION_ENV, "rank")
    folder = tmp_path / "acme"
    shutil.copytree(acme_index, folder)
    docs = write_docs(tmp_path / "docs", SDK_FILES)
    build(BuildOptions(docs_dir=docs, out=tmp_path / "other"))
    specs = parse_index_specs([f"acme={folder}", f"other={tmp_path / 'other'}"])
    ready = open_hub(specs, key=CURSOR_KEY)
    try:
        union_ready(ready.hub)
        tools = lambda: HubTools(ready.hub.view())  # noqa: E731 (a view per request, as the server's)
        assert not tools().search_docs({"query": "zanzibarquux"})[0]["hits"]
        extra = {"guides/zanzibar.md": "# Zanzibar\n\n## Quux\n\nThe zanzibarquux widget spins.\n"}
        build(BuildOptions(docs_dir=write_docs(docs, extra), out=folder))  # swapped in by rename
        view = ready.hub.view()
        assert union_for(view, SearchRequest(query="zanzibarquux"), exact_only=False) is None
        answer = tools().search_docs({"query": "zanzibarquux"})[0]
        assert [h["library"] for h in answer["hits"][:1]] == ["acme"]  # from acme's own new index
        union_ready(ready.hub)
        again = tools().search_docs({"query": "zanzibarquux"})[0]
        ids = [(h["library"], h["chunk_id"]) for h in again["hits"]]
        assert ids == [(h["library"], h["chunk_id"]) for h in answer["hits"]]
    finally:
        ready.stop()
    made = Path(os.environ[CACHE_ENV]) / UNIONS_DIR
    before = {p.name: p.stat().st_ino for p in made.iterdir() if not p.name.startswith(".")}
    restarted = open_hub(specs, key=CURSOR_KEY)
    try:
        union_ready(restarted.hub, timeout=60)
        after = {p.name: p.stat().st_ino for p in made.iterdir() if not p.name.startswith(".")}
        assert after == before
    finally:
        restarted.stop()


def test_a_library_rebuilt_unchanged_while_its_union_is_made_gets_its_union(
    acme_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rebuild of unchanged docs keeps the library's identity, so the union's key. One landing
    while that union is made fails the making (it reads files the rebuild deleted); the key is then
    not marked failed, and the union is made when next asked, not never. The failure is raised at
    that moment (a real rebuild, then the error LanceDB gives): the race it stands for is not
    reproducible on demand."""
    monkeypatch.setenv(UNION_ENV, "rank")
    folder = tmp_path / "acme"
    shutil.copytree(acme_index, folder)
    docs = write_docs(tmp_path / "docs", SDK_FILES)
    other = tmp_path / "other"
    build(BuildOptions(docs_dir=docs, out=other))
    identity = read_manifest(other).identity
    make = UnionIndex._made
    keys: list[str] = []

    def rebuilt_while_made(self: UnionIndex, key: str, libraries: list[tuple[str, Path]]) -> Any:
        keys.append(key)
        if len(keys) == 1:
            build(BuildOptions(docs_dir=docs, out=other))  # swapped in, its old files deleted
            raise DocsMcpError("lance error: Not found: a data file of the index read")
        return make(self, key, libraries)

    monkeypatch.setattr(UnionIndex, "_made", rebuilt_while_made)
    ready = open_hub(parse_index_specs([f"acme={folder}", f"other={other}"]), key=CURSOR_KEY)
    try:
        union_ready(ready.hub, timeout=60)
    finally:
        ready.stop()
    assert read_manifest(other).identity == identity
    assert keys == [keys[0], keys[0]]


def test_the_union_command(example_v1: Path, acme_index: Path, tmp_path: Path) -> None:
    """``docs-mcp union`` writes the union once (again: found), and a bad argument is one line."""
    command = [sys.executable, "-m", "docs_mcp", "union", "--cache", str(tmp_path), "--json"]
    given = [f"example={example_v1}", f"acme={acme_index}"]
    first = subprocess.run([*command, *given], capture_output=True, text=True, check=True)
    assert '"reused": false' in first.stdout
    again = union([("example", example_v1), ("acme", acme_index)], tmp_path)
    assert (
        again.reused
        and again.chunks == read_manifest(example_v1).chunk_count + read_manifest(acme_index).chunk_count
    )
    bad = subprocess.run([*command, "a/b=x"], capture_output=True, text=True, check=False)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1 and "NAME=FOLDER" in bad.stderr
