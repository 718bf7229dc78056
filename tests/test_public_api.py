"""The public API of each stage package: exactly the names listed here, each importable, and cheap.

Changing a package's ``__all__`` is a change of the public API a host application builds on: update
the expected names here on purpose (and the docs), never to make this test pass.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

PUBLIC_API: dict[str, list[str]] = {
    "docs_mcp.artifact": [
        "ARTIFACT_TYPE",
        "Credentials",
        "PublishResult",
        "PullResult",
        "Reference",
        "is_oci_reference",
        "parse_reference",
        "publish",
        "pull",
        "resolve",
    ],
    "docs_mcp.authoring": [
        "Chunk",
        "Corpus",
        "FileChange",
        "FixProposal",
        "ValidationReport",
        "fix",
        "load_corpus",
        "validate",
    ],
    "docs_mcp.build": ["CACHE_DIR_NAME", "BuildOptions", "BuildProgress", "BuildResult", "build"],
    "docs_mcp.store": [
        "FORMAT_VERSION",
        "LANCEDB_DIR",
        "MANIFEST_FILE",
        "TABLE_NAME",
        "EmbeddingInfo",
        "FacetTaxonomy",
        "IndexManifest",
        "facet_column",
        "read_manifest",
        "table_schema",
        "write_manifest",
    ],
    "docs_mcp.search": [
        "CONTEXT_MAX",
        "LIMIT_DEFAULT",
        "LIMIT_MAX",
        "OFFSET_MAX",
        "QUERY_MAX_LENGTH",
        "SEARCH_MODES",
        "SPEC_FACETS",
        "DocsIndex",
        "FacetConventions",
        "FusionConfig",
        "SearchConfig",
        "SearchMode",
        "SearchPage",
        "SearchRequest",
        "Section",
        "SectionWindow",
        "Variant",
    ],
    "docs_mcp.embedding": [
        "NO_EMBEDDINGS",
        "CostEstimate",
        "EmbeddingProvider",
        "EmbeddingSettings",
        "ProviderFactory",
        "create_provider",
        "provider_names",
        "register_provider",
    ],
    "docs_mcp.server": [
        "DEFAULT_HOST",
        "DEFAULT_PORT",
        "OCI_SCHEME",
        "HttpOptions",
        "ReadyServer",
        "RegistryOptions",
        "Transport",
        "create_server",
        "open_server",
        "serve",
    ],
}


@pytest.mark.parametrize("package", sorted(PUBLIC_API))
def test_a_stage_package_exports_exactly_its_public_api(package: str) -> None:
    module = importlib.import_module(package)
    assert sorted(module.__all__) == sorted(PUBLIC_API[package])
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
    modules = {value.__module__ for package in PUBLIC_API for value in _exported_objects(package)}
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
        "import docs_mcp.authoring, docs_mcp.build, docs_mcp.store, docs_mcp.search, docs_mcp.embedding\n"
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


@pytest.mark.parametrize("package", sorted(PUBLIC_API))
def test_no_exported_name_is_also_a_submodule_name(package: str) -> None:
    # Importing a submodule sets it as an attribute of its package, so an export of the same name
    # (a function `validate` beside a module `validate.py`) would turn into the module.
    import pkgutil

    module = importlib.import_module(package)
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    assert not submodules & set(module.__all__)
