"""MCP resources: the sections whose facet values the taxonomy marks ``mcp_resource``.

Each library's marked sections are listed under its name, ``docs://{library}/{chunk_id}`` (the id
percent-encoded where a URI needs it: ``#`` is ``%23``), libraries in name order; one index served
alone lists them as ``docs://{chunk_id}``. Each is named by its chunk id, titled by its heading,
described by its breadcrumb, of type ``text/markdown``. The list is paged (:data:`PAGE_SIZE`) with a
signed cursor bound to every index listed. The template reads any section, listed or not; only the
latest version of each library is listed, ``docs://{library}@{version}/{chunk_id}`` reads another
served version. When no value is marked the server offers no resources at all (``app``).
"""

from __future__ import annotations

from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from docs_mcp.errors import ChunkNotFound, CursorError, QueryError
from docs_mcp.search.types import Section
from docs_mcp.server.hub.libraries import HubView, Served
from docs_mcp.server.tools.cursor import RESOURCES

__all__ = ["MIME_TYPE", "PAGE_SIZE", "SCHEME", "DocsResources", "chunk_id_of", "resource_uri"]

SCHEME = "docs://"
MIME_TYPE = "text/markdown"
PAGE_SIZE = 100  # resources per resources/list page


def resource_uri(chunk_id: str, library: str = "") -> str:
    """``docs://``, the library and a slash (when there is one) and the chunk id, percent-encoded
    where URI syntax needs it."""
    return SCHEME + (f"{library}/" if library else "") + quote(chunk_id, safe="/")


def chunk_id_of(uri: str) -> str | None:
    """The chunk id a ``docs://{chunk_id}`` URI names (encoded or not), or None for another scheme."""
    if not uri.startswith(SCHEME):
        return None
    return unquote(uri[len(SCHEME) :])


def _marks_resources(served: Served) -> bool:
    return any(entry.resources for entry in served.manifest.taxonomy.values())


def _invalid(message: str) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message)


class DocsResources:
    """The resources of every library; ``enabled`` when some library marks values ``mcp_resource``
    (known from the manifests, before the libraries are open)."""

    def __init__(self, view: HubView) -> None:
        self._view = view
        self.enabled = any(_marks_resources(s) for s in view.defaults())

    def list(self, cursor: str | None) -> types.ListResourcesResult:
        """One page of the listed resources. Raises ``MCPError`` (invalid params) for a bad cursor."""
        listed = [
            (served, chunk_id)
            for served in self._view.defaults()
            if _marks_resources(served)
            for chunk_id in served.state.index.resource_ids()
        ]
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
            resources += [self._resource(served, section) for section in served.state.index.sections(ids)]
        following = offset + PAGE_SIZE
        return types.ListResourcesResult(
            resources=resources,
            next_cursor=codec.seal(RESOURCES, {"o": following}) if following < len(listed) else None,
        )

    def _resource(self, served: Served, section: Section) -> types.Resource:
        trail = " > ".join(section.breadcrumb)
        return types.Resource(
            uri=resource_uri(section.chunk_id, served.name),
            name=section.chunk_id if self._view.unnamed else f"{served.name}/{section.chunk_id}",
            title=section.heading or section.file_path,
            description=f"{trail} ({section.file_path})" if trail else section.file_path,
            mime_type=MIME_TYPE,
        )

    def templates(self) -> types.ListResourceTemplatesResult:
        """The one template: any section by its library and chunk id (by its chunk id alone)."""
        if self._view.unnamed:
            shape, about = (
                "{chunk_id}",
                "Any section of the documentation, by the chunk_id search_docs returns.",
            )
        else:
            shape = "{library}/{chunk_id}"
            about = "Any section of a library, by the library and chunk_id a search_docs hit gives."
        template = types.ResourceTemplate(
            name="section",
            title="A documentation section",
            uri_template=SCHEME + shape,
            description=about,
            mime_type=MIME_TYPE,
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    def read(self, uri: str) -> types.ReadResourceResult:
        """The markdown of the section ``uri`` names. Raises ``MCPError`` (invalid params) for a URI
        that names no section served here."""
        served, chunk_id = self._named(uri)
        try:
            window = served.state.index.get(chunk_id)
        except ChunkNotFound as error:
            close = f" Similar ids: {', '.join(error.close_ids)}." if error.close_ids else ""
            where = "no section has" if self._view.unnamed else f"library {served.name!r} has no"
            raise _invalid(f"Unknown resource {uri!r}: {where} chunk_id {chunk_id!r}.{close}") from error
        markdown = window.chunks[0].markdown or ""
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=markdown)]
        )

    def _named(self, uri: str) -> tuple[Served, str]:
        """The library version and chunk id ``uri`` names. Raises ``MCPError`` otherwise."""
        if self._view.unnamed:
            chunk_id = chunk_id_of(uri)
            if chunk_id is None:
                raise _invalid(
                    f"Unknown resource {uri!r}: resources of this server are {SCHEME}{{chunk_id}}."
                )
            return self._view.sole, chunk_id
        shape = f"resources of this server are {SCHEME}{{library}}/{{chunk_id}}"
        if not uri.startswith(SCHEME) or "/" not in uri[len(SCHEME) :]:
            raise _invalid(f"Unknown resource {uri!r}: {shape}.")
        library, _, encoded = uri[len(SCHEME) :].partition("/")
        name, _, version = library.partition("@")
        try:
            return self._view.resolve(name, version or None), unquote(encoded)
        except QueryError as error:
            raise _invalid(f"Unknown resource {uri!r}: {error}") from error
