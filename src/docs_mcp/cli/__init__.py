"""docs_mcp.cli"""
