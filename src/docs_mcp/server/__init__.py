"""docs_mcp.server"""
