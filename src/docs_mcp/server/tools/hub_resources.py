"""MCP resources of a server with several libraries: ``docs://{library}/{chunk_id}``.

Each library's marked sections (its taxonomy's ``mcp_resource`` values) are listed under its name,
libraries in name order, in pages of :data:`~docs_mcp.server.tools.resources.PAGE_SIZE` with a signed cursor
bound to every index listed. The template reads any section of any library. Only the latest version
of each library is listed; ``docs://{library}@{version}/{chunk_id}`` reads another served version.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from docs_mcp.errors import ChunkNotFound, CursorError, QueryError
from docs_mcp.server.hub.libraries import HubView, Served
from docs_mcp.server.tools.cursor import RESOURCES
from docs_mcp.server.tools.resources import MIME_TYPE, PAGE_SIZE, SCHEME

__all__ = ["HubResources", "library_resource_uri"]


def library_resource_uri(served: Served, chunk_id: str) -> str:
    """``docs://LIBRARY/CHUNK_ID`` (``LIBRARY@VERSION`` for a version that is not the latest)."""
    return f"{SCHEME}{served.name}/{quote(chunk_id, safe='/')}"


def _marks_resources(served: Served) -> bool:
    return any(entry.resources for entry in served.manifest.taxonomy.values())


def _invalid(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


class HubResources:
    """The resources of every library; ``enabled`` when some library marks values ``mcp_resource``."""

    def __init__(self, view: HubView) -> None:
        self._view = view
        # As DocsResources decides it, from the manifest: known before the library is open.
        self.enabled = any(_marks_resources(s) for s in view.defaults())

    def _listed(self) -> list[tuple[Served, str]]:
        return [
            (served, chunk_id)
            for served in self._view.defaults()
            if _marks_resources(served)
            for chunk_id in served.state.index.resource_ids()
        ]

    def list(self, cursor: str | None) -> types.ListResourcesResult:
        """One page of the listed resources. Raises ``MCPError`` (invalid params) for a bad cursor."""
        listed = self._listed()
        codec = self._view.codec(None)
        offset = 0
        if cursor is not None:
            try:
                offset = codec.offset_of(cursor, RESOURCES)
            except CursorError as error:
                raise _invalid(str(error)) from error
        page = listed[offset : offset + PAGE_SIZE]
        resources = []
        for served in {id(s): s for s, _ in page}.values():
            ids = [chunk_id for s, chunk_id in page if s is served]
            for section in served.state.index.sections(ids):
                trail = " > ".join(section.breadcrumb)
                resources.append(
                    types.Resource(
                        uri=library_resource_uri(served, section.chunk_id),
                        name=f"{served.name}/{section.chunk_id}",
                        title=section.heading or section.file_path,
                        description=f"{trail} ({section.file_path})" if trail else section.file_path,
                        mime_type=MIME_TYPE,
                    )
                )
        following = offset + PAGE_SIZE
        return types.ListResourcesResult(
            resources=resources,
            next_cursor=codec.seal(RESOURCES, {"o": following}) if following < len(listed) else None,
        )

    @staticmethod
    def templates() -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            name="section",
            title="A documentation section",
            uri_template=SCHEME + "{library}/{chunk_id}",
            description="Any section of a library, by the library and chunk_id a search_docs hit gives.",
            mime_type=MIME_TYPE,
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    def read(self, uri: str) -> types.ReadResourceResult:
        """The markdown of the section ``uri`` names. Raises ``MCPError`` (invalid params) otherwise."""
        shape = f"resources of this server are {SCHEME}{{library}}/{{chunk_id}}"
        if not uri.startswith(SCHEME) or "/" not in uri[len(SCHEME) :]:
            raise _invalid(f"Unknown resource {uri!r}: {shape}.")
        library, _, encoded = uri[len(SCHEME) :].partition("/")
        name, _, version = library.partition("@")
        try:
            served = self._view.resolve(name, version or None)
        except QueryError as error:
            raise _invalid(f"Unknown resource {uri!r}: {error}") from error
        chunk_id = unquote(encoded)
        try:
            window = served.state.index.get(chunk_id)
        except ChunkNotFound as error:
            close = f" Similar ids: {', '.join(error.close_ids)}." if error.close_ids else ""
            raise _invalid(
                f"Unknown resource {uri!r}: library {name!r} has no chunk_id {chunk_id!r}.{close}"
            ) from error
        markdown = window.chunks[0].markdown or ""
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=markdown)]
        )
