"""docs_mcp.eval"""
