"""Authoring: markdown parsing, hints, manifests, the corpus walk, chunking and ``validate``.

Needs the ``build`` extra (markdown-it-py, pyyaml); imports nothing of the index (store, search).
"""
