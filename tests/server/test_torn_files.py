"""Files the running server reads again (a watched index folder's manifest) written torn or into wrong
shapes: the real HTTP server keeps answering from the index it has, never a 5xx or a traceback, and
serves the folder again once it is whole."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from rpc_support import search_call
from server_support import HttpServer, start_http_server, stop

from docs_mcp.store.index_manifest import MANIFEST_FILE

pytestmark = pytest.mark.timeout(120)
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def served(
    example_index: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[HttpServer, Path]]:
    folder = tmp_path_factory.mktemp("served") / "index"
    shutil.copytree(example_index, folder)
    server = start_http_server(folder)
    try:
        yield server, folder
    finally:
        stop(server)


def _search(server: HttpServer) -> dict[str, Any]:
    response = httpx.post(server.url, content=json.dumps(search_call(1)), headers=HEADERS, timeout=30)
    assert response.status_code == 200, response.text[:300]
    result: dict[str, Any] = response.json()["result"]
    return result


def _wrong_shaped(good: bytes) -> bytes:
    data = json.loads(good)
    data["chunk_count"] = [[0]] * 2000
    return json.dumps(data).encode()


DAMAGE = {
    "cut-mid-character": lambda good: good[: len(good) // 2] + b"\xc3",
    "cut-in-half": lambda good: good[: len(good) // 2],
    "empty": lambda good: b"",
    "a-list-for-a-count": _wrong_shaped,
    "not-utf8-inside": lambda good: good.replace(b'"', b'"\xff', 1),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_torn_or_wrong_shaped_manifest_keeps_the_served_index_answering(
    served: tuple[HttpServer, Path], damage: str
) -> None:
    """A manifest that is not UTF-8 (a torn multi-byte character) raised UnicodeDecodeError where
    the reload expects an index error: the request that noticed the change failed."""
    server, folder = served
    manifest = folder / MANIFEST_FILE
    good = manifest.read_bytes()
    before = _search(server)
    try:
        manifest.write_bytes(DAMAGE[damage](good))
        assert _search(server) == before
        assert _search(server) == before
    finally:
        manifest.write_bytes(good)
    assert _search(server) == before
    said = "".join(server.stderr_lines)
    assert "Traceback" not in said
    assert "cannot be opened; still serving the previous index" in said
    assert max(len(line) for line in server.stderr_lines) < 1_000
