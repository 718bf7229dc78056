"""The MCP wire: stdio and Streamable HTTP, the message checks both apply, the search page.

Knows nothing of the libraries served or the index reader (an import-linter contract).
"""
