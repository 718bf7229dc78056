"""The public API of each stage package: the names its ``__all__`` lists, each importable, and cheap.

``__all__`` is read from the package's ``if TYPE_CHECKING:`` re-exports (``docs_mcp._lazy``), the one
place a public name is written; these tests import every name it lists, so a name declared there
that does not resolve, or resolves to another stage's object, fails here.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys

import pytest

import docs_mcp

CLI_AND_SHARED = {"cli", "import_cuts"}  # no stage: the CLI exports nothing, serve installs the cuts
STAGES = sorted(
    f"docs_mcp.{info.name}"
    for info in pkgutil.iter_modules(docs_mcp.__path__)
    if info.ispkg and info.name not in CLI_AND_SHARED
)


def test_every_stage_package_is_found() -> None:
    # The pipeline's folders; a new stage is added here on purpose (and to the README's table).
    assert [s.removeprefix("docs_mcp.") for s in STAGES] == [
        "artifact", "chunk", "corpus", "embedding", "eval", "fix", "indexing", "parse", "search",
        "server", "store",
    ]  # fmt: skip


@pytest.mark.parametrize("package", STAGES)
def test_a_stage_package_exports_what_its_all_names(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__, f"{package} declares no public name"
    assert module.__all__ == sorted(set(module.__all__))
    for name in module.__all__:
        value = getattr(module, name)
        origin = getattr(value, "__module__", package)
        # Our own objects come from the package itself; type aliases and constants have no origin.
        if isinstance(value, type) or (callable(value) and origin.startswith("docs_mcp")):
            assert origin.startswith(package + "."), f"{package}.{name} comes from {origin}"
    assert set(module.__all__) <= set(dir(module))


def test_an_unknown_name_is_an_attribute_error() -> None:
    search = importlib.import_module("docs_mcp.search")
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        search.Nope  # noqa: B018


def test_every_public_module_declares_all() -> None:
    # The stage packages' own modules that the packages re-export from are public too.
    modules = {value.__module__ for package in STAGES for value in _exported_objects(package)}
    missing = sorted(m for m in modules if "__all__" not in vars(importlib.import_module(m)))
    assert missing == []


def _exported_objects(package: str) -> list[object]:
    module = importlib.import_module(package)
    values = [getattr(module, name) for name in module.__all__]
    return [
        v
        for v in values
        if isinstance(getattr(v, "__module__", None), str) and v.__module__.startswith(package)
    ]


@pytest.mark.timeout(60)
def test_importing_the_packages_and_the_request_types_loads_neither_lancedb_nor_markdown_it() -> None:
    code = (
        "import json, sys\n"
        "import docs_mcp.parse, docs_mcp.chunk, docs_mcp.corpus, docs_mcp.fix, docs_mcp.indexing\n"
        "import docs_mcp.store, docs_mcp.search, docs_mcp.embedding\n"
        "import docs_mcp.server, docs_mcp.search.types\n"
        "from docs_mcp.search import SearchRequest, SearchConfig\n"
        "SearchRequest('retries')\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    loaded = set(json.loads(output.stdout))
    assert not loaded & {"lancedb", "pyarrow", "markdown_it", "yaml", "mcp", "numpy"}


@pytest.mark.parametrize("package", STAGES)
def test_no_exported_name_is_also_a_submodule_name(package: str) -> None:
    # Importing a submodule sets it as an attribute of its package, so an export of the same name
    # (a function `validate` beside a module `validate.py`) would turn into the module.
    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not submodules & set(module.__all__)
