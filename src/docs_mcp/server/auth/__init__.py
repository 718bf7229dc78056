"""Who may call ``/mcp`` over HTTP: bearer tokens from a file or JWTs from an issuer.

Knows nothing of the libraries served or the index reader (an import-linter contract).
"""
