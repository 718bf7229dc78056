"""Embedding providers behind one small contract, created by name from a registry, and their cache."""
