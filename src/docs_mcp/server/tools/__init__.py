"""The MCP server proper: the tools, resources and prompts, their schemas and prose, and answers
within a token budget with signed cursors.
"""
