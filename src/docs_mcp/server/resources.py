"""MCP resources: the sections whose facet values the taxonomy marks ``mcp_resource``.

Each such chunk is listed as a resource ``docs://{chunk_id}`` (the id percent-encoded where a URI
needs it: ``#`` is ``%23``), named by its chunk id, titled by its heading, described by its
breadcrumb, of type ``text/markdown``. The template ``docs://{chunk_id}`` reads any section of the
index, listed or not. The list is paged with signed cursors, like search results. When no value is
marked the server offers no resources at all (see ``app.create_server``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from docs_mcp.errors import ChunkNotFound, CursorError
from docs_mcp.search.types import Section
from docs_mcp.server.cursor import RESOURCES, CursorCodec

if TYPE_CHECKING:
    from docs_mcp.search.reader import IndexReader  # an opened DocsIndex

__all__ = ["MIME_TYPE", "PAGE_SIZE", "SCHEME", "DocsResources", "chunk_id_of", "resource_uri"]

SCHEME = "docs://"
MIME_TYPE = "text/markdown"
PAGE_SIZE = 100  # resources per resources/list page


def resource_uri(chunk_id: str) -> str:
    """``docs://`` and the chunk id, percent-encoded where URI syntax needs it."""
    return SCHEME + quote(chunk_id, safe="/")


def chunk_id_of(uri: str) -> str | None:
    """The chunk id a ``docs://`` URI names (encoded or not), or None for another scheme."""
    if not uri.startswith(SCHEME):
        return None
    return unquote(uri[len(SCHEME) :])


class DocsResources:
    """The resources of one index; ``enabled`` is False when its taxonomy marks no value."""

    def __init__(self, index: IndexReader, codec: CursorCodec) -> None:
        self._index = index
        self._codec = codec
        self.enabled = bool(index.resource_values)

    def list(self, cursor: str | None) -> types.ListResourcesResult:
        """One page of the listed resources. Raises ``MCPError`` (invalid params) for a bad cursor."""
        ids = self._index.resource_ids()
        offset = 0
        if cursor is not None:
            try:
                offset = self._codec.offset_of(cursor, RESOURCES)
            except CursorError as error:
                raise MCPError(code=types.INVALID_PARAMS, message=str(error)) from error
        page = self._index.sections(ids[offset : offset + PAGE_SIZE])
        following = offset + PAGE_SIZE
        return types.ListResourcesResult(
            resources=[_resource(section) for section in page],
            next_cursor=self._codec.seal(RESOURCES, {"o": following}) if following < len(ids) else None,
        )

    @staticmethod
    def templates() -> types.ListResourceTemplatesResult:
        """The one template: any section by its chunk id."""
        template = types.ResourceTemplate(
            name="section",
            title="A documentation section",
            uri_template=SCHEME + "{chunk_id}",
            description="Any section of the documentation, by the chunk_id search_docs returns.",
            mime_type=MIME_TYPE,
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    def read(self, uri: str) -> types.ReadResourceResult:
        """The markdown of the section ``uri`` names. Raises ``MCPError`` (invalid params) for a URI
        that names no section of this index."""
        chunk_id = chunk_id_of(uri)
        if chunk_id is None:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown resource {uri!r}: resources of this server are {SCHEME}{{chunk_id}}.",
            )
        try:
            window = self._index.get(chunk_id)
        except ChunkNotFound as error:
            close = f" Similar ids: {', '.join(error.close_ids)}." if error.close_ids else ""
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"Unknown resource {uri!r}: no section has chunk_id {chunk_id!r}.{close}",
            ) from error
        markdown = window.chunks[0].markdown or ""
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=markdown)]
        )


def _resource(section: Section) -> types.Resource:
    trail = " > ".join(section.breadcrumb) if section.breadcrumb else ""
    return types.Resource(
        uri=resource_uri(section.chunk_id),
        name=section.chunk_id,
        title=section.heading or section.file_path,
        description=f"{trail} ({section.file_path})" if trail else section.file_path,
        mime_type=MIME_TYPE,
    )
