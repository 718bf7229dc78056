"""``serve --index oci://REF``: pulled from a real registry, the same answers as the local folder, and
``--refresh-interval`` swapping to a new digest under load with no failed request."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from load_support import QUERIES, Load, call
from mcp import Client, StdioServerParameters
from registry_support import Registry, start_registry, stop_registry
from server_support import HttpServer, serve_command, server_env, start_http_server, stop

from docs_mcp.artifact import PublishResult, publish
from docs_mcp.errors import ConfigError, RegistryUnreachable
from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server.hub.registry_source import RegistrySource
from docs_mcp.server.startup.options import RegistryOptions
from docs_mcp.server.startup.serving import serve

pytestmark = pytest.mark.timeout(180)
EXTRA_PAGE = "# Zebra crossings\n\nThe quokka endpoint reports zebra crossings for a city.\n"


@pytest.fixture(scope="module")
def index_b(tmp_path_factory: pytest.TempPathFactory, examples_docs: Path) -> Path:
    docs = tmp_path_factory.mktemp("docs-b") / "docs"
    shutil.copytree(examples_docs, docs)
    (docs / "guides" / "zebra.md").write_text(EXTRA_PAGE)
    out = docs.parent / "index"
    build(BuildOptions(docs_dir=docs, out=out))
    return out


def _hits(url: str, query: str) -> list[tuple[str, float]]:
    result = call(url, "search_docs", {"query": query, "limit": 5})
    return [(hit["chunk_id"], hit["score"]) for hit in result["structuredContent"]["hits"]]


def test_an_index_served_from_the_registry_answers_like_the_local_folder(
    registry: Registry, example_index: Path, tmp_path: Path
) -> None:
    published = publish(example_index, registry.ref("serve/round-trip"), cache_dir=tmp_path / "publisher")
    local = start_http_server(example_index)
    remote = start_http_server(
        f"oci://{registry.ref('serve/round-trip')}", "--cache-dir", str(tmp_path / "cache")
    )
    try:
        for query in QUERIES:
            assert _hits(remote.url, query) == _hits(local.url, query)
        health = httpx.get(f"{remote.base}/healthz").json()
        assert health["artifact"] == {"reference": str(published.reference), "digest": published.digest}
        assert health["index"] == published.manifest.identity
    finally:
        stop(local)
        stop(remote)


def test_refresh_swaps_to_a_new_digest_under_load_without_a_failed_request(
    registry: Registry, example_index: Path, index_b: Path, tmp_path: Path
) -> None:
    ref = registry.ref("serve/refresh")
    first = publish(example_index, ref, cache_dir=tmp_path / "publisher")
    server = start_http_server(
        f"oci://{ref}",
        "--refresh-interval",
        "0.2",
        "--cache-dir",
        str(tmp_path / "cache"),
    )
    load = Load(server.url, workers=4).start()
    try:
        assert not _hits(server.url, "quokka zebra")
        time.sleep(0.5)  # a stretch of load on the first index
        second = publish(index_b, ref, cache_dir=tmp_path / "publisher")
        published_at = time.monotonic()
        deadline = published_at + 30
        while httpx.get(f"{server.base}/healthz").json()["artifact"]["digest"] != second.digest:
            assert time.monotonic() < deadline, "the server never moved to the new digest"
            time.sleep(0.02)  # no event crosses the process boundary: poll the health endpoint
        swapped_at = time.monotonic()
        time.sleep(0.5)  # and a stretch on the new one
    finally:
        load.stop()
        stop(server)
    assert load.failures == []
    assert first.digest != second.digest
    pause = load.slowest_between(published_at, swapped_at)
    seen = swapped_at - published_at
    print(
        f"\n{load.calls} calls; swap seen {seen:.2f} s after publish; slowest call then {pause * 1000:.1f} ms"
    )
    assert "now serving" in "".join(server.stderr_lines)


def test_a_refresh_interval_needs_a_registry_tag(example_index: Path) -> None:
    with pytest.raises(ConfigError, match="follows a registry tag"):
        serve(example_index, registry=RegistryOptions(refresh_interval=5))


def _published_then_registry_stopped(
    example_index: Path, tmp_path: Path, reference: Callable[[Registry, PublishResult], str]
) -> tuple[str, PublishResult, Path]:
    """Publish to a registry of this test's own, start serving it once (filling the cache), then stop
    that registry: (the reference served, what was published, the cache)."""
    own = start_registry(tmp_path / "registry")
    cache = tmp_path / "cache"
    try:
        published = publish(example_index, own.ref("offline/index"), cache_dir=tmp_path / "publisher")
        served = reference(own, published)
        RegistrySource(served, cache_dir=cache).start()
    finally:
        stop_registry(own)
    return served, published, cache


def test_a_pinned_digest_the_cache_holds_starts_with_the_registry_down(
    example_index: Path, tmp_path: Path
) -> None:
    served, published, cache = _published_then_registry_stopped(
        example_index, tmp_path, lambda _, published: str(published.reference)
    )
    assert "@sha256:" in served
    server = start_http_server(f"oci://{served}", "--cache-dir", str(cache))
    try:
        assert _hits(server.url, QUERIES[0])
        assert httpx.get(f"{server.base}/healthz").json()["artifact"]["digest"] == published.digest
    finally:
        stop(server)


def test_a_tag_falls_back_to_the_digest_it_last_resolved_to_when_the_registry_is_down(
    example_index: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    served, published, cache = _published_then_registry_stopped(
        example_index, tmp_path, lambda own, _: own.ref("offline/index")
    )
    with caplog.at_level("WARNING", logger="docs_mcp.server.hub.registry_source"):
        started = RegistrySource(served, cache_dir=cache).start()
    assert started.digest == published.digest
    assert "cannot be reached" in caplog.text and published.digest in caplog.text
    server = start_http_server(f"oci://{served}", "--cache-dir", str(cache))
    try:
        assert _hits(server.url, QUERIES[0])
        assert any("cannot be reached" in line for line in server.stderr_lines)
    finally:
        stop(server)


def test_a_tag_never_pulled_here_is_an_error_when_the_registry_is_down(tmp_path: Path) -> None:
    own = start_registry(tmp_path / "registry")
    stop_registry(own)
    with pytest.raises(RegistryUnreachable):
        RegistrySource(own.ref("offline/never"), cache_dir=tmp_path / "cache").start()


def test_forgetting_old_swaps_removes_their_folders_and_layer_blobs(
    registry: Registry, example_index: Path, index_b: Path, tmp_path: Path, examples_docs: Path
) -> None:
    docs_c = tmp_path / "docs-c"
    shutil.copytree(examples_docs, docs_c)
    (docs_c / "guides" / "ferry.md").write_text("# Ferry timetables\n\nThe ferry endpoint lists sailings.\n")
    index_c = tmp_path / "index-c"
    build(BuildOptions(docs_dir=docs_c, out=index_c))
    ref = registry.ref("serve/forget")
    cache = tmp_path / "cache"
    source = RegistrySource(ref, cache_dir=cache)
    pulled = []
    for index in (example_index, index_b, index_c):
        publish(index, ref, cache_dir=tmp_path / "publisher")
        pulled.append(source.fetch())
    blobs = {p.name for p in (cache / "blobs" / "sha256").iterdir()}
    assert len(blobs) == 3 and len({p.digest for p in pulled}) == 3
    pulled[0].lease.release()  # two swaps old; the other two are still held (served)
    source.forget()
    left_indexes = sorted(p.name for p in (cache / "indexes").iterdir() if not p.name.startswith("."))
    assert left_indexes == sorted(p.path.name for p in pulled[1:])
    left = {p.name for p in (cache / "blobs" / "sha256").iterdir()}
    assert len(left) == 2 and left < blobs
    assert all(p.path.is_dir() for p in pulled[1:])


def test_forgetting_never_removes_an_index_another_process_holds(
    registry: Registry, example_index: Path, index_b: Path, tmp_path: Path
) -> None:
    """A lease is a lock per process: an index held by another process (here a real server, not
    following its tag) survives this one's clean-up; once that process exits it goes."""
    cache = tmp_path / "cache"
    held_ref = registry.ref("serve/held")
    publish(example_index, held_ref, cache_dir=tmp_path / "publisher")
    holder = start_http_server(f"oci://{held_ref}", "--cache-dir", str(cache))
    try:
        held = next(p for p in (cache / "indexes").iterdir() if not p.name.startswith("."))
        publish(index_b, held_ref, cache_dir=tmp_path / "publisher")  # the tag moves on: no record keeps it
        mover = RegistrySource(held_ref, cache_dir=cache)
        mover.fetch()
        (cache / "tags").rename(tmp_path / "tags-aside")  # only the lease may keep `held` now
        mover.forget()
        assert held.is_dir() and _hits(holder.url, QUERIES[0])
    finally:
        stop(holder)
    mover.forget()
    assert not held.exists()


def test_two_servers_following_tags_on_one_cache_never_break_each_other(
    registry: Registry, example_index: Path, index_b: Path, tmp_path: Path
) -> None:
    """Issue 19: one server's clean-up of old swaps removed the folder the other was serving (two MCP
    entries sharing ~/.cache/docs-mcp). Two real servers follow two tags of a real registry on one
    cache; each tag moves while the other server is under load; neither ever fails a call."""
    cache, publisher = tmp_path / "cache", tmp_path / "publisher"
    refs = [registry.ref("shared/a"), registry.ref("shared/b")]
    for ref in refs:
        publish(example_index, ref, cache_dir=publisher)
    with ThreadPoolExecutor(2) as pool:  # two starts at once: the test's time is mostly start-up
        servers = list(
            pool.map(
                lambda ref: start_http_server(
                    f"oci://{ref}", "--refresh-interval", "0.1", "--cache-dir", str(cache)
                ),
                refs,
            )
        )
    loads = [Load(server.url, workers=2).start() for server in servers]
    try:
        # Each tag moves (a: there and back); the other server must keep its folders meanwhile.
        for mover, index in ((0, index_b), (1, index_b), (0, example_index)):
            published = publish(index, refs[mover], cache_dir=publisher)
            deadline = time.monotonic() + 30
            while _digest(servers[mover]) != published.digest:
                assert time.monotonic() < deadline, "the server never moved to the new digest"
                time.sleep(0.02)
            time.sleep(0.2)  # the other server serves on while this one cleans up
    finally:
        for load in loads:
            load.stop()
        codes = [stop(server) for server in servers]
    assert [load.failures[:3] for load in loads] == [[], []]
    assert all(load.calls > 0 for load in loads) and codes == [0, 0]
    assert "Traceback" not in "".join(line for server in servers for line in server.stderr_lines)


def _digest(server: HttpServer) -> str:
    return str(httpx.get(f"{server.base}/healthz").json()["artifact"]["digest"])


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_an_index_from_the_registry_is_served_over_stdio(
    registry: Registry, example_index: Path, tmp_path: Path
) -> None:
    published = publish(example_index, registry.ref("serve/stdio"), cache_dir=tmp_path / "publisher")
    command = serve_command(f"oci://{registry.ref('serve/stdio')}", "--cache-dir", str(tmp_path / "cache"))
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=server_env())
    async with Client(parameters) as client:
        page = await client.call_tool("search_docs", {"query": "create a payment", "limit": 3})
        assert not page.is_error and isinstance(page.structured_content, dict)
        hit = page.structured_content["hits"][0]
        window = await client.call_tool("get_doc", {"chunk_id": hit["chunk_id"]})
        assert not window.is_error
    assert (tmp_path / "cache" / "indexes" / published.digest.removeprefix("sha256:")).is_dir()
