"""Primitives: parsing, chunking, manifests, the index, search and embeddings.

Imports nothing from the other layers (cli, server, eval, artifact). Modules that need build-time
dependencies (markdown-it-py, pyyaml) are only imported by build and validate code paths, never by
the search/index read path the server uses.
"""
