"""The search page's files and headers over real HTTP; ``--no-page`` turns it off. (The page itself
runs in Chromium: test_page_browser.py.)"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from server_support import HttpServer, start_http_server, stop

from docs_mcp.server.transport.page import CONTENT_SECURITY_POLICY


@pytest.mark.parametrize(
    ("path", "media_type"),
    [
        ("/", "text/html"),
        ("/page/page.js", "text/javascript"),
        ("/page/page.css", "text/css"),
        ("/page/favicon.svg", "image/svg+xml"),
    ],
)
def test_page_files_are_served_with_a_strict_policy(
    http_server: HttpServer, path: str, media_type: str
) -> None:
    response = httpx.get(http_server.base + path, timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(media_type)
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.content


def test_the_page_loads_only_its_own_files(http_server: HttpServer) -> None:
    html = httpx.get(http_server.base + "/", timeout=10).text
    assert "<script>" not in html and "style=" not in html  # nothing inline: the policy forbids it
    for reference in ('src="/page/page.js"', 'href="/page/page.css"', 'href="/page/favicon.svg"'):
        assert reference in html
    assert "http://" not in html and "https://" not in html  # no third-party script or style


def test_policy_allows_only_this_origin() -> None:
    directives = dict(d.strip().split(" ", 1) for d in CONTENT_SECURITY_POLICY.split(";"))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == directives["connect-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"


def test_no_page_turns_it_off(example_index: Path) -> None:
    server = start_http_server(example_index, "--no-page")
    try:
        assert httpx.get(server.base + "/", timeout=10).status_code == 404
        assert httpx.get(server.base + "/page/page.js", timeout=10).status_code == 404
        assert httpx.get(server.base + "/healthz", timeout=10).status_code == 200
        assert not any("search page" in line for line in server.stderr_lines)
    finally:
        stop(server)


def test_the_server_announces_the_page(http_server: HttpServer) -> None:
    announced = f"search page at {http_server.base}/"
    deadline = time.monotonic() + 10  # the line after the one start_http_server waited for
    while not any(announced in line for line in http_server.stderr_lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert any(announced in line for line in http_server.stderr_lines)
