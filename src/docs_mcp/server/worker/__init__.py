"""The stdio server's index worker: a child process that opens and searches the indexes, started
before the server imports the MCP SDK.
"""
