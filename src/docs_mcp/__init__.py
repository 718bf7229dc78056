"""docs-mcp: turn a folder of markdown documentation into a search index and serve it over MCP."""

__version__ = "0.1.0"
