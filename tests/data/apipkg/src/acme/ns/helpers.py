"""Helpers in a folder without ``__init__.py``."""


def slugify(text: str) -> str:
    """Turn ``text`` into a URL slug."""
    return text.lower()
