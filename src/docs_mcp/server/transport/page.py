"""The search page at ``/`` of ``serve --transport http``: four static files and their headers.

The page is an MCP client of the same server's ``/mcp`` (``page_assets/page.js``): it sees what an
agent sees, through the same Host/Origin checks, and this module serves nothing but the files. No
build step and no third-party script; the Content-Security-Policy allows only this origin's script,
style and ``fetch``, no inline code, no frames.
"""

from __future__ import annotations

from importlib.resources import files

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

__all__ = ["CONTENT_SECURITY_POLICY", "page_routes"]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    # The files change with the installed version only; revalidating costs one small request.
    "Cache-Control": "no-cache",
}
# URL path -> (file in page_assets, media type)
_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/page/page.js": ("page.js", "text/javascript; charset=utf-8"),
    "/page/page.css": ("page.css", "text/css; charset=utf-8"),
    "/page/favicon.svg": ("favicon.svg", "image/svg+xml"),
}


def page_routes() -> list[Route]:
    """GET routes for the page's files, read once here (a few kilobytes)."""
    assets = files("docs_mcp.server.transport") / "page_assets"
    routes = []
    for path, (name, media_type) in _FILES.items():
        body = (assets / name).read_bytes()

        async def endpoint(request: Request, body: bytes = body, media_type: str = media_type) -> Response:
            return Response(body, media_type=media_type, headers=_HEADERS)

        routes.append(Route(path, endpoint, methods=["GET"]))
    return routes
