"""docs_mcp.artifact"""
