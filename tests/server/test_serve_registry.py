"""``serve --index oci://REF``: pulled from a real registry, the same answers as the local folder, and
``--refresh-interval`` swapping to a new digest under load with no failed request."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import httpx
import pytest
from load_support import QUERIES, Load, call
from registry_support import Registry
from server_support import start_http_server, stop

from docs_mcp.artifact import publish
from docs_mcp.build.pipeline import BuildOptions, build
from docs_mcp.errors import ConfigError
from docs_mcp.server.serving import RegistryOptions, serve

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
