"""Release gates against the images: claude-docs built by docs-mcp-build, served by docs-mcp-serve on a
private Docker network, the 100 labelled questions asked over Streamable HTTP from this host.

Fails when recall@3 / MRR@3 fall below, or the search round trip's p95 rises above, the
``[release.*]`` limits of ``benchmarks/thresholds.toml``. Also: two replicas sharing
``DOCS_MCP_CURSOR_SECRET`` honour each other's cursors (stateless scale-out), and an ``idx-<hash>``
image with the index baked in answers with no network at all. Figures go into the benchmark's
``extra_info`` (``--benchmark-json`` keeps them).

The index is built by the build image into a mounted folder (``release_index``); the folder is
served mounted, and also published through the build image to a registry container on the private
network, from which a serve container pulls it by digest (``DOCS_MCP_INDEX=oci://...``) into its
cache volume, first from the registry and then, in a second container, from the cache alone.
"""

from __future__ import annotations

import json
import re
import statistics
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from image_support import (
    await_log_line,
    build_images,
    docker_run_stdio,
    host_user,
    run_to_exit,
    serve_container,
    serving,
)
from mcp import Client
from pytest_benchmark.fixture import BenchmarkFixture
from testcontainers.core.container import DockerContainer
from testcontainers.core.network import Network

from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.store.index_manifest import read_manifest
from testkit.evaldata_sets import claude_docs_queries, stage_claude_docs
from testkit.thresholds import check_figures

pytestmark = [pytest.mark.docker, pytest.mark.release, pytest.mark.timeout(900)]

K = 3
# The search_docs mode each variant must answer in (a silent fallback would skew the gate).
VARIANTS = {"fulltext": ("none", "fulltext"), "local-hybrid": ("local", "hybrid")}


@pytest.fixture(scope="module")
def release_network() -> Iterator[Network]:
    """A private bridge network for the serve replicas (and, later, the registry they pull from)."""
    with Network() as network:
        yield network


@pytest.fixture(scope="module")
def claude_docs(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return stage_claude_docs(evaldata_dir, tmp_path_factory.mktemp("claude-docs") / "docs")


def _build(build_image: str, docs: Path, out: Path, provider: str) -> Path:
    ran = run_to_exit(
        build_image,
        ["build", "--docs-dir", "/docs", "--out", "/out/index", "--embedding-provider", provider, "--quiet"],
        volumes=[(docs, "/docs", "ro"), (out, "/out", "rw")],
        user=host_user(),
        timeout=600,
    )
    assert ran.exit_code == 0, ran.output
    return out / "index"


@pytest.fixture(scope="module")
def release_index(
    build_image: str, claude_docs: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """claude-docs built by the build image, per embedding provider, into mounted folders."""
    return {
        provider: _build(build_image, claude_docs, tmp_path_factory.mktemp(f"release-{provider}"), provider)
        for provider in ("none", "local")
    }


@pytest.fixture(scope="module")
def variant_images(serve_image: str, serve_local_image: str) -> dict[str, str]:
    return {"fulltext": serve_image, "local-hybrid": serve_local_image}


def _score(relevant: tuple[str, ...], retrieved: list[str]) -> tuple[float, float]:
    """(recall@K, reciprocal rank@K) of one question, gold ids matched exactly (as the ci gates do)."""
    top = retrieved[:K]
    rank = next((i for i, chunk_id in enumerate(top, start=1) if chunk_id in relevant), None)
    return len(set(relevant).intersection(top)) / len(relevant), (1.0 / rank if rank else 0.0)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def _ask_all(url: str, queries: list[LabelledQuery], mode: str) -> dict[str, float]:
    """Ask every labelled query over HTTP; recall@K, MRR@K and round-trip percentiles (ms)."""
    recalls: list[float] = []
    ranks: list[float] = []
    latencies: list[float] = []
    async with Client(url) as client:
        await client.call_tool("search_docs", {"query": "warm up the connection"})
        for labelled in queries:
            arguments: dict[str, Any] = {"query": labelled.query, "limit": K, **labelled.filters}
            started = time.perf_counter()
            page = await client.call_tool("search_docs", arguments)
            latencies.append((time.perf_counter() - started) * 1000)
            assert not page.is_error and isinstance(page.structured_content, dict), page.content
            assert page.structured_content["mode"] == mode, page.structured_content.get("fallback_reason")
            retrieved = [hit["chunk_id"] for hit in page.structured_content["hits"]]
            recall, reciprocal_rank = _score(labelled.relevant, retrieved)
            recalls.append(recall)
            ranks.append(reciprocal_rank)
    return {
        "recall_at_3": statistics.fmean(recalls),
        "mrr_at_3": statistics.fmean(ranks),
        "search_p50_ms": statistics.median(latencies),
        "search_p95_ms": _percentile(latencies, 0.95),
    }


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_release_gate_on_claude_docs_through_the_serve_container(
    variant: str,
    benchmark: BenchmarkFixture,
    release_index: dict[str, Path],
    variant_images: dict[str, str],
    release_network: Network,
    evaldata_dir: Path,
    request: pytest.FixtureRequest,
) -> None:
    """The benchmark times the whole 100-question run; the gated figures go into its extra_info."""
    provider, mode = VARIANTS[variant]
    queries = load_queries(claude_docs_queries(evaldata_dir))
    assert len(queries) == 100
    container = serve_container(
        variant_images[variant],
        index=release_index[provider],
        network=release_network,
        aliases=[f"docs-{variant}"],
        read_only=True,
    )
    runs: list[dict[str, float]] = []
    with serving(container) as served:
        benchmark.pedantic(lambda: runs.append(anyio.run(_ask_all, served.url, queries, mode)), rounds=1)
    figures = runs[-1]
    benchmark.extra_info.update({key: round(value, 4) for key, value in figures.items()})
    print(
        f"\n{variant} through {variant_images[variant]}: recall@3 {figures['recall_at_3']:.3f}, "
        f"MRR@3 {figures['mrr_at_3']:.3f}, search p50 {figures['search_p50_ms']:.1f} ms, "
        f"p95 {figures['search_p95_ms']:.1f} ms"
    )
    assert check_figures(request.node.name, figures, "release") == []


@pytest.mark.anyio
async def test_two_replicas_sharing_a_cursor_secret_honour_each_others_cursors(
    serve_image: str, release_index: dict[str, Path], release_network: Network
) -> None:
    index = release_index["none"]
    shared = {"DOCS_MCP_CURSOR_SECRET": "release-gate-shared-secret"}
    other = {"DOCS_MCP_CURSOR_SECRET": "a-different-secret"}
    query = {"query": "how do I stream responses", "limit": 2}
    with (
        serving(serve_container(serve_image, index=index, env=shared, network=release_network)) as first,
        serving(serve_container(serve_image, index=index, env=shared, network=release_network)) as second,
        serving(serve_container(serve_image, index=index, env=other, network=release_network)) as stranger,
    ):
        async with Client(first.url) as a, Client(second.url) as b, Client(stranger.url) as c:
            page_one = (await a.call_tool("search_docs", query)).structured_content
            assert isinstance(page_one, dict) and page_one["next_cursor"]
            cursor = {**query, "cursor": page_one["next_cursor"]}
            from_a = (await a.call_tool("search_docs", cursor)).structured_content
            from_b = await b.call_tool("search_docs", cursor)
            assert not from_b.is_error and isinstance(from_b.structured_content, dict), from_b.content
            assert isinstance(from_a, dict)
            assert [h["chunk_id"] for h in from_b.structured_content["hits"]] == [
                h["chunk_id"] for h in from_a["hits"]
            ]
            assert (await c.call_tool("search_docs", cursor)).is_error


# A client inside the network: one raw tools/call over HTTP with the standard library; prints the
# HTTP status and the number of hits.
RAW_CALL = """
import json, sys, urllib.error, urllib.request
call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "search_docs", "arguments": {"query": "streaming responses"}}}
request = urllib.request.Request(sys.argv[1], data=json.dumps(call).encode(), headers={
    "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
try:
    with urllib.request.urlopen(request, timeout=30) as response:
        print(response.status, len(json.load(response)["result"]["structuredContent"]["hits"]))
except urllib.error.HTTPError as error:
    print(error.code, 0)
"""


def test_a_client_on_the_private_network_reaches_a_replica_by_its_alias_once_allowed(
    serve_image: str, release_index: dict[str, Path], release_network: Network
) -> None:
    """Host-header checking refuses names it was not told about; DOCS_MCP_ALLOW_HOSTS tells it."""
    allowed = {"DOCS_MCP_ALLOW_HOSTS": "docs-allowed:8000"}
    index = release_index["none"]
    with (
        serving(
            serve_container(
                serve_image, index=index, env=allowed, network=release_network, aliases=["docs-allowed"]
            )
        ),
        serving(serve_container(serve_image, index=index, network=release_network, aliases=["docs-strict"])),
    ):
        answers = {
            alias: run_to_exit(
                serve_image,
                ["-c", RAW_CALL, f"http://{alias}:8000/mcp"],
                entrypoint="python3",
                network=release_network.name,
            )
            for alias in ("docs-allowed", "docs-strict")
        }
    status, hits = answers["docs-allowed"].output.split()
    assert (status, int(hits) > 0) == ("200", True), answers["docs-allowed"].output
    assert answers["docs-strict"].output.split()[0] in ("403", "421"), answers["docs-strict"].output


@pytest.fixture(scope="module")
def idx_image(images: tuple[str, str], release_index: dict[str, Path]) -> str:
    """docs-mcp-serve:idx-<content hash>: the full-text claude-docs index baked into the serve image."""
    (image,) = build_images(f"idx {release_index['none']}")
    assert image == f"docs-mcp-serve:idx-{read_manifest(release_index['none']).content_hash[:12]}"
    return image


@pytest.mark.anyio
async def test_an_idx_image_answers_with_its_network_cut_off(idx_image: str, evaldata_dir: Path) -> None:
    labelled = load_queries(claude_docs_queries(evaldata_dir))[0]
    server = docker_run_stdio(idx_image, "--network", "none", "--read-only", "-e", "DOCS_MCP_TRANSPORT=stdio")
    started = time.perf_counter()
    async with Client(server) as client:
        page = await client.call_tool("search_docs", {"query": labelled.query, "limit": K})
        first_answer = time.perf_counter() - started
        assert not page.is_error and isinstance(page.structured_content, dict)
        hits = [hit["chunk_id"] for hit in page.structured_content["hits"]]
        assert set(labelled.relevant) & set(hits), (labelled.relevant, hits)
    print(f"\n{idx_image} with --network none: docker run -i to first answer {first_answer:.2f} s")


def test_serve_container_start_to_first_answer(
    benchmark: BenchmarkFixture,
    serve_image: str,
    release_index: dict[str, Path],
    request: pytest.FixtureRequest,
) -> None:
    """``docker run`` (create + start) of the serve image with the index mounted, to the first
    ``search_docs`` answer over HTTP from this host."""
    timings: list[float] = []

    async def first_answer(url: str) -> None:
        async with Client(url) as client:
            page = await client.call_tool("search_docs", {"query": "prompt caching"})
            assert not page.is_error

    def once() -> None:
        started = time.perf_counter()
        with serving(serve_container(serve_image, index=release_index["none"], read_only=True)) as served:
            anyio.run(first_answer, served.url)
            timings.append(time.perf_counter() - started)

    benchmark.pedantic(once, rounds=3, iterations=1)
    figures = {"first_answer_s": statistics.median(timings)}
    benchmark.extra_info.update(first_answer_s=round(figures["first_answer_s"], 3), all_s=timings)
    print(f"\nserve container start to first answer: {', '.join(f'{t:.2f}' for t in timings)} s")
    assert check_figures(request.node.name, figures, "release") == []


@pytest.fixture(scope="module")
def registry_container(release_network: Network) -> Iterator[DockerContainer]:
    """A real registry (Debian's docker-registry) reachable as ``registry:5000`` on the network."""
    (image,) = build_images("registry")
    container = DockerContainer(image).with_network(release_network).with_network_aliases("registry")
    container.start()
    try:
        await_log_line(container, re.compile(r"listening on"), timeout=60)
        yield container
    finally:
        container.stop()


@pytest.fixture(scope="module")
def registry(registry_container: DockerContainer) -> str:
    return "registry:5000"


@pytest.fixture(scope="module")
def published(
    build_image: str, registry: str, release_index: dict[str, Path], release_network: Network
) -> tuple[str, str]:
    """The full-text claude-docs index published through the build image: ``REF@sha256:...`` and
    the digest of its one layer (the index folder)."""
    reference = f"oci://{registry}/docs/claude-docs:release"
    ran = run_to_exit(
        build_image,
        ["publish", reference, "--index", "/index", "--insecure", "--cache-dir", "/tmp/cache", "--json"],
        volumes=[(release_index["none"], "/index", "ro")],
        network=release_network.name,
    )
    assert ran.exit_code == 0, ran.output
    result = json.loads(next(line for line in ran.output.splitlines() if line.startswith("{")))
    assert result["reference"].startswith(f"{registry}/docs/claude-docs:release@sha256:"), result
    return str(result["reference"]), str(result["layer"]["digest"])


def test_the_serve_container_pulls_the_published_index_by_reference_and_passes_the_gate(
    serve_image: str,
    published: tuple[str, str],
    registry_container: DockerContainer,
    release_network: Network,
    evaldata_dir: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Pulled by digest into a named cache volume, then served to the 100 questions; a second
    container on the same volume serves from the cache: the registry's own request log shows the
    index layer downloaded once (the second container asks for the manifest and its config only)."""
    reference, layer = published
    queries = load_queries(claude_docs_queries(evaldata_dir))
    cache = f"docs-mcp-cache-{uuid.uuid4().hex[:8]}"
    env = {"DOCS_MCP_INDEX": f"oci://{reference}"}
    timings: dict[str, float] = {}
    layer_gets: dict[str, int] = {}
    figures: dict[str, float] = {}
    client = None
    try:
        for phase in ("pulled", "cached"):
            container = serve_container(serve_image, env=env, network=release_network, read_only=True)
            container.with_volume_mapping(cache, "/var/cache/docs-mcp", "rw").with_command(
                ["serve", "--insecure"]
            )
            started = time.perf_counter()
            with serving(container, timeout=120) as served:
                client = served.container.get_docker_client().client
                anyio.run(_ask_all, served.url, queries[:1], "fulltext")  # the first answer
                timings[phase] = time.perf_counter() - started
                if phase == "pulled":
                    figures = anyio.run(_ask_all, served.url, queries, "fulltext")
                    health = served.container.exec(["python3", "-c", HEALTH]).output.decode()
                    assert reference.split("@")[1] in health, health
            layer_gets[phase] = _blob_downloads(registry_container, layer)
    finally:
        if client is not None:
            client.volumes.get(cache).remove(force=True)
    print(
        f"\noci://{reference}: start to first answer {timings['pulled']:.2f} s pulling, "
        f"{timings['cached']:.2f} s from the cache; recall@3 {figures['recall_at_3']:.3f}, "
        f"MRR@3 {figures['mrr_at_3']:.3f}, search p95 {figures['search_p95_ms']:.1f} ms"
    )
    assert layer_gets == {"pulled": 1, "cached": 1}, layer_gets
    assert check_figures(request.node.name, figures, "release") == []


def _blob_downloads(registry: DockerContainer, digest: str) -> int:
    """How many times the registry has served the blob ``digest`` so far (its request log)."""
    stdout, stderr = registry.get_logs()
    log = (stdout + stderr).decode(errors="replace")
    return len(re.findall(rf'"GET /v2/[^"]*/blobs/{re.escape(digest)} HTTP/1\.1" 200', log))


# /healthz from inside the container (it reports the artifact's reference and digest).
HEALTH = (
    "import urllib.request as r; print(r.urlopen('http://127.0.0.1:8000/healthz', timeout=5).read().decode())"
)
