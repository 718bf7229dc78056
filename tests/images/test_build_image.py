"""docs-mcp-build as CI and the Action run it: validate and build a mounted docs folder into a mounted
output folder, then the serve image serves what it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from image_support import docker_run_stdio, host_user, run_to_exit, serve_container, serving
from mcp import Client

from docs_mcp.store.index_manifest import read_manifest

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]


def test_the_build_image_validates_a_docs_folder(build_image: str, examples_docs: Path) -> None:
    ran = run_to_exit(
        build_image, ["validate", "--docs-dir", "/docs"], volumes=[(examples_docs, "/docs", "ro")]
    )
    assert ran.exit_code == 0, ran.output
    assert "0 errors" in ran.output


def test_the_build_image_refuses_docs_with_errors_naming_the_file(build_image: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("---\ntitle: [unclosed\n---\n# Guide\n\nText.\n")
    out = tmp_path / "out"
    out.mkdir()
    ran = run_to_exit(
        build_image,
        ["build", "--docs-dir", "/docs", "--out", "/out/index"],
        volumes=[(docs, "/docs", "ro"), (out, "/out", "rw")],
        user=host_user(),
    )
    assert ran.exit_code == 1, ran.output
    assert "guide.md" in ran.output
    assert not (out / "index").exists()


def test_the_build_image_writes_an_index_the_serve_image_serves(
    build_image: str, serve_image: str, container_index: Path
) -> None:
    manifest = read_manifest(container_index)
    assert manifest.chunk_count > 0 and manifest.file_count == 13 and manifest.embedding is None
    with serving(serve_container(serve_image, index=container_index)) as served:
        assert served.index_identity == manifest.identity


@pytest.mark.anyio
async def test_an_index_built_with_local_embeddings_is_served_hybrid_by_the_local_serve_image(
    build_image: str, serve_local_image: str, examples_docs: Path, tmp_path: Path
) -> None:
    ran = run_to_exit(
        build_image,
        ["build", "--docs-dir", "/docs", "--out", "/out/index", "--embedding-provider", "local", "--quiet"],
        volumes=[(examples_docs, "/docs", "ro"), (tmp_path, "/out", "rw")],
        user=host_user(),
    )
    assert ran.exit_code == 0, ran.output
    index = tmp_path / "index"
    with serving(serve_container(serve_local_image, index=index, read_only=True)) as served:
        async with Client(served.url) as client:
            page = await client.call_tool("search_docs", {"query": "how do I get my money back"})
            assert not page.is_error and isinstance(page.structured_content, dict)
            assert page.structured_content["mode"] == "hybrid"
            assert page.structured_content["hits"]


@pytest.mark.anyio
async def test_the_local_serve_image_answers_hybrid_with_no_network_at_all(
    build_image: str, serve_local_image: str, examples_docs: Path, tmp_path: Path
) -> None:
    """Issue 23: with ``--network none`` the local image starts, embeds the query with its bundled model
    and answers a hybrid search (nothing fetched at run time: every image sets HF_HUB_OFFLINE), and
    everything the server may import still imports after the image's stripping and pruning."""
    ran = run_to_exit(
        build_image,
        ["build", "--docs-dir", "/docs", "--out", "/out/index", "--embedding-provider", "local", "--quiet"],
        volumes=[(examples_docs, "/docs", "ro"), (tmp_path, "/out", "rw")],
        user=host_user(),
    )
    assert ran.exit_code == 0, ran.output
    for image in (build_image, serve_local_image):
        probe = "import os; print(os.environ.get('HF_HUB_OFFLINE'), os.environ.get('TRANSFORMERS_OFFLINE'))"
        offline = run_to_exit(image, ["-c", probe], entrypoint="python3")
        assert offline.output.split() == ["1", "1"], (image, offline.output)
    imports = (
        "import docs_mcp.server.startup.serving, docs_mcp.server.tools.app, docs_mcp.server.transport.http, "
        "docs_mcp.cli.commands.serve, lancedb, cryptography.exceptions, "
        "pyarrow.compute, pyarrow.dataset, uvloop, onnxruntime, tokenizers; "
        "from docs_mcp.artifact import pull; from docs_mcp.embedding import local; "
        "local.LocalProvider().embed_query('warm'); print('imported')"
    )
    imported = run_to_exit(serve_local_image, ["-c", imports], entrypoint="python3")
    assert imported.exit_code == 0 and "imported" in imported.output, imported.output
    server = docker_run_stdio(
        serve_local_image,
        "--network",
        "none",
        "-e",
        "DOCS_MCP_TRANSPORT=stdio",
        "-e",
        "DOCS_MCP_INDEX=/index",
        volumes=[(tmp_path / "index", "/index")],
    )
    async with Client(server) as client:
        page = await client.call_tool("search_docs", {"query": "how do I get my money back"})
        assert not page.is_error and isinstance(page.structured_content, dict)
        assert page.structured_content["mode"] == "hybrid"
        assert page.structured_content["hits"]
