"""Embedding providers behind one small interface, created by name from a registry."""
