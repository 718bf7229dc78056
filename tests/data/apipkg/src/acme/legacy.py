"""Functions kept for older callers."""


def fetch(key, default=None):
    """Fetch a value by its key.

    :param key: The key to look up.
    :param default: What to return when the key is missing.
    :returns: The value, or ``default``.
    :raises KeyError: The store is closed.

    .. versionadded:: 1.2
    """
    return default
