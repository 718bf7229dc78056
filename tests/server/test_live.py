"""Swapping the served index between requests: a rebuilt folder is reopened, requests never fail,
old cursors are reported stale."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from load_support import Load, call
from mcp import Client
from server_support import HttpServer, start_http_server, stop

from docs_mcp.errors import IndexUnavailable
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.server.hub.live import REPLACED_RUNS, LiveIndex, Signature, folder_signature
from docs_mcp.server.hub.opening import open_hub, open_server
from docs_mcp.server.hub.specs import parse_index_specs
from docs_mcp.server.tools.app import ServerState, on_state
from docs_mcp.store.cache_home import CACHE_ENV

pytestmark = pytest.mark.timeout(180)
EXTRA_PAGE = "# Zebra crossings\n\nThe quokka endpoint reports zebra crossings for a city.\n"


@pytest.fixture
def two_doc_sets(examples_docs: Path, tmp_path: Path) -> tuple[Path, Path]:
    """examples/docs, and a copy with one more page whose words no other page has (``quokka``)."""
    more = tmp_path / "docs-b"
    shutil.copytree(examples_docs, more)
    (more / "guides" / "zebra.md").write_text(EXTRA_PAGE)
    return examples_docs, more


def test_a_rebuild_changes_the_folder_signature_and_a_fixed_holder_never_swaps(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    before = folder_signature(out)
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    assert folder_signature(out) not in (None, before)
    fixed = LiveIndex("state")
    assert fixed.acquire() == "state"


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_rebuilt_folder_is_served_at_the_next_request_and_old_cursors_are_stale(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    ready = open_server(out, key=b"live-test-key", watch=True)
    async with Client(ready.server) as client:
        first = await client.call_tool("search_docs", {"query": "payment", "limit": 1})
        assert not first.is_error and isinstance(first.structured_content, dict)
        cursor = first.structured_content["next_cursor"]
        missing = await client.call_tool("search_docs", {"query": "quokka zebra"})
        assert isinstance(missing.structured_content, dict) and not missing.structured_content["hits"]
        build(BuildOptions(docs_dir=two_doc_sets[1], out=out))
        found = await client.call_tool("search_docs", {"query": "quokka zebra"})
        assert not found.is_error and isinstance(found.structured_content, dict)
        assert found.structured_content["hits"][0]["file"] == "guides/zebra.md"
        stale = await client.call_tool("search_docs", {"query": "payment", "cursor": cursor})
        assert stale.is_error and "stale" in str(stale.content[0])
    assert ready.live.swaps == 1
    assert ready.live.current.index.identity == DocsIndex.open(out).identity


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_a_served_folder_removed_says_so_and_is_served_again_once_built(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    """A removed folder was reported as "cannot be read by this user (permission denied)", with a
    chmod to run: it says the folder is gone and how to bring it back, and a build there is served."""
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    ready = open_server(out, watch=True)
    async with Client(ready.server) as client:
        shutil.rmtree(out)
        gone = await client.call_tool("search_docs", {"query": "payment"})
        assert gone.is_error
        assert f"the index at '{out}' is gone" in str(gone.content[0]) and "permission" not in str(
            gone.content[0]
        )
        build(BuildOptions(docs_dir=two_doc_sets[1], out=out))
        found = await client.call_tool("search_docs", {"query": "quokka zebra"})
        assert not found.is_error and isinstance(found.structured_content, dict)
        assert found.structured_content["hits"][0]["file"] == "guides/zebra.md"


def test_rebuilding_the_served_folder_under_load_fails_no_request(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    """The bug this fixes: after `docs-mcp build` replaced the folder, every call failed with
    "internal error" until a restart (LanceDB read data files the swap had deleted)."""
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    server = start_http_server(out)
    with _under_load(server):
        for docs in (two_doc_sets[1], two_doc_sets[0], two_doc_sets[1]):
            build(BuildOptions(docs_dir=docs, out=out))
            _wait_until_serving(server, DocsIndex.open(out).identity)
    assert "was rebuilt: now serving" in "".join(server.stderr_lines)


def test_a_rebuild_that_cannot_be_opened_keeps_the_previous_index(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    ready = open_server(out, watch=True)
    before = ready.live.current
    manifest = out / "docs-mcp-index.json"
    manifest.write_text(manifest.read_text().replace('"format_version": 3', '"format_version": 99'))
    assert ready.live.acquire() is before  # logged, not raised; and not retried on every request
    assert ready.live.acquire() is before
    assert ready.live.swaps == 0


def test_a_served_folder_updated_in_place_under_load_fails_no_request(
    examples_docs: Path, tmp_path: Path
) -> None:
    """Issue 34: a rebuild after one edit updates the index (indexing/incremental.py) rather than
    writing it anew; the server answers throughout, then from the updated index."""
    docs = shutil.copytree(examples_docs, tmp_path / "docs")
    for n in range(60):  # enough rows that one edited page is an incremental update
        (docs / "topics").mkdir(exist_ok=True)
        (docs / "topics" / f"t{n:02d}.md").write_text(f"# Topic {n}\n\n## Notes\n\nNotes on topic {n}.\n")
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=docs, out=out))
    server = start_http_server(out)
    with _under_load(server):
        for n in range(3):
            page = docs / "topics" / f"t{n:02d}.md"
            page.write_text(page.read_text() + f"\n## Quokka {n}\n\nThe quokka counted {n} zebras.\n")
            assert build(BuildOptions(docs_dir=docs, out=out)).incremental
            _wait_until_serving(server, DocsIndex.open(out).identity)
        found = call(server.url, "search_docs", {"query": "quokka counted zebras"})
    assert {hit["file"] for hit in found["structuredContent"]["hits"]} == {
        "topics/t00.md",
        "topics/t01.md",
        "topics/t02.md",
    }


def test_a_library_rebuilt_under_merged_searches_fails_no_request(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    """A hub of two libraries answering searches without ``library`` (through their union, made again
    after each swap) while one library's folder is rebuilt three times: no call fails, and the
    rebuilt library is served with its new rows."""
    served, other = tmp_path / "served", tmp_path / "other"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=served))
    build(BuildOptions(docs_dir=two_doc_sets[0], out=other))
    env = {CACHE_ENV: str(tmp_path / "cache")}
    server = start_http_server(f"served={served}", "--index", f"other={other}", env=env)
    with _under_load(server, get_chunk_id=None):  # searches only: a chunk id would name no library
        for docs in (two_doc_sets[1], two_doc_sets[0], two_doc_sets[1]):
            build(BuildOptions(docs_dir=docs, out=served))
            _wait_until_serving(server, DocsIndex.open(served).identity, library="served")
        found = call(server.url, "search_docs", {"query": "quokka zebra"})
    assert [(hit["library"], hit["file"]) for hit in found["structuredContent"]["hits"][:1]] == [
        ("served", "guides/zebra.md")
    ]


def test_a_request_whose_index_is_replaced_twice_under_it_runs_on_the_newest(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    """Builds landing one after the other can delete the files of the index a failed request was
    run again on: it runs once more while the state keeps changing (at most ``REPLACED_RUNS`` times in
    all); a failure on a state that did not change is the request's error at once."""
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    ready = open_hub(parse_index_specs([str(out)]))
    runs: list[ServerState] = []

    def replaced_under_it(state: ServerState) -> ServerState:
        runs.append(state)
        if len(runs) < REPLACED_RUNS:
            build(BuildOptions(docs_dir=two_doc_sets[len(runs) % 2], out=out))  # the next build lands
            raise IndexUnavailable("a data file was deleted under this read")
        return state

    def failing(state: ServerState) -> ServerState:
        runs.append(state)
        raise IndexUnavailable("a data file is damaged")

    try:
        answered = on_state(ready.states, replaced_under_it)
        assert len({id(state) for state in runs}) == len(runs) == REPLACED_RUNS
        served = next(iter(answered.view.served.values()))
        assert served.identity == DocsIndex.open(out).identity
        runs.clear()
        with pytest.raises(IndexUnavailable, match="damaged"):
            on_state(ready.states, failing)
        assert runs == [answered]
    finally:
        ready.stop()


def test_a_folder_rebuilt_while_it_is_opened_is_opened_again_and_the_start_does_not_fail(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    """The bug this fixes: a build landing while ``serve`` opened the folder (its files deleted under
    the open) stopped the server with "the index is damaged; rebuild it" (measured: 1 start in 12
    under back-to-back builds). The open runs again while the folder keeps changing; a failure on a
    folder that did not change is raised at once."""
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    opens: list[Signature | None] = []

    def rebuilt_under_the_open(path: Path) -> DocsIndex:
        opens.append(folder_signature(path))
        if len(opens) < REPLACED_RUNS:
            build(BuildOptions(docs_dir=two_doc_sets[len(opens) % 2], out=path))  # swapped in, deleted
            raise IndexUnavailable("a data file was deleted under the open")
        return DocsIndex.open(path)

    live = LiveIndex.open(out, rebuilt_under_the_open, watch=True)
    assert len(set(opens)) == len(opens) == REPLACED_RUNS
    assert live.current.identity == DocsIndex.open(out).identity
    assert live.acquire() is live.current  # the signature kept is the opened folder's: no reopen

    def damaged(path: Path) -> DocsIndex:
        opens.append(folder_signature(path))
        raise IndexUnavailable("a data file is damaged")

    opens.clear()
    with pytest.raises(IndexUnavailable, match="damaged"):
        LiveIndex.open(out, damaged)
    assert len(opens) == 1


@contextmanager
def _under_load(server: HttpServer, get_chunk_id: str | None = Load.get_chunk_id) -> Iterator[Load]:
    """``server`` under a load of four workers for the block; then the load and the server stop, and
    no call may have failed (more than 20 answered)."""
    load = Load(server.url, workers=4, get_chunk_id=get_chunk_id).start()
    try:
        yield load
        answered = load.calls
    finally:
        load.stop()
        stop(server)
    assert load.failures == []
    assert answered > 20


def _wait_until_serving(server: HttpServer, identity: str, library: str | None = None) -> None:
    """Until ``server``'s health endpoint names the index ``identity`` (of ``library``, in a hub; at
    most 30 s)."""
    deadline = time.monotonic() + 30
    while _served_identity(httpx.get(f"{server.base}/healthz").json(), library) != identity:
        assert time.monotonic() < deadline, f"the server never reopened its folder as {identity}"
        time.sleep(0.05)  # no event to await across processes: poll the health endpoint


def test_a_rebuild_landing_while_a_swap_is_announced_is_reopened_by_the_same_thread(
    two_doc_sets: tuple[Path, Path], tmp_path: Path
) -> None:
    """The deadlock this fixes: the request that reopened a rebuilt folder announced the swap while it
    held the reopen lock; the announcement acquires the state again, and when the next build had
    landed meanwhile that request waited for itself (and every request after it waited too)."""
    out = tmp_path / "out"
    build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
    announced: list[str] = []

    def on_swap(state: DocsIndex, _path: Path) -> None:
        announced.append(state.identity)
        if len(announced) == 1:  # the next build lands while the first swap is announced
            build(BuildOptions(docs_dir=two_doc_sets[0], out=out))
        live.acquire()  # as the server's on_swap does (ServerStates.acquire)

    live = LiveIndex.open(out, DocsIndex.open, watch=True, on_swap=on_swap)
    build(BuildOptions(docs_dir=two_doc_sets[1], out=out))
    request = threading.Thread(target=live.acquire, daemon=True)
    request.start()
    request.join(60)
    assert not request.is_alive(), "the request waited for itself"
    rebuilt = DocsIndex.open(out).identity
    assert live.swaps == 2
    assert announced[1] == live.current.identity == rebuilt != announced[0]


def _served_identity(health: dict[str, Any], library: str | None) -> str:
    if library is None:
        return str(health["index"])
    return next(str(one["index"]) for one in health["indexes"] if one["library"] == library)
