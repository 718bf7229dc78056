"""``serve``: its options, the start over a transport, and ``/healthz``.

Imports nothing heavy: the CLI enters it before the server stack is imported.
"""
