"""Import lancedb without paying for its REST namespace client.

``import lancedb`` executes ``lance_namespace_urllib3_client`` in full: an OpenAPI-generated client
for remote namespaces whose ~300 modules cost about half of lancedb's import, and that a local
``.lancedb`` directory never uses. ``docs-mcp serve`` must start fast, so before lancedb is first
imported we register that client's packages as lazy modules:
each name their ``__init__`` would import is resolved from its submodule on first access, so
anything that does use the client still gets the real classes.

If a package's ``__init__`` holds anything but plain imports and constants (a future version), we
leave everything as it is and lancedb imports the ordinary way.

What it saves is measured against the plain import in the same run
(``benchmarks/test_replacements.py::test_lancedb_import_against_the_plain_import``; figures in the
README's measured table). The models that ``lance_namespace`` itself imports by name are still
loaded.

``install_import_hook`` (run by ``docs_mcp.store``) costs nothing until lancedb is imported: a
meta-path finder that, the first time ``lancedb`` is looked up, installs the lazy packages and steps
aside. Code that never imports lancedb (``docs-mcp --help``, validation) never reads those files.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.machinery
import sys
import types
from pathlib import Path

# Library versions this replacement was measured against (see tests/test_replacements.py).
MEASURED_WITH = {"lancedb": "0.40", "lance-namespace-urllib3-client": "0.13"}

LAZY_PACKAGES = (
    "lance_namespace_urllib3_client",
    "lance_namespace_urllib3_client.api",
    "lance_namespace_urllib3_client.models",
)


def _read_exports(
    init_file: Path, package: str
) -> tuple[dict[str, tuple[str, str]], dict[str, object]] | None:
    """``{exported name: (module, name)}`` and constants of the ``__init__`` of ``package``, or None
    if it does anything else. Relative imports are resolved against ``package``."""
    exports: dict[str, tuple[str, str]] = {}
    constants: dict[str, object] = {}
    for node in ast.parse(init_file.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and (node.module or node.level):
            base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            source = node.module if not node.level else ".".join(filter(None, (base, node.module)))
            assert source is not None
            for alias in node.names:
                if alias.name == "*":
                    return None
                exports[alias.asname or alias.name] = (source, alias.name)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, (ast.Constant, ast.List, ast.Tuple))
        ):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                return None
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            return None
    return exports, constants


def lazy_package(name: str, parent: types.ModuleType | None) -> types.ModuleType | None:
    """A stand-in for package ``name`` whose ``__init__`` names are imported on first access, or
    None when its ``__init__`` is not only imports and constants (or it is not found)."""
    # PathFinder, not importlib.util.find_spec: the latter imports the parent package.
    spec = importlib.machinery.PathFinder.find_spec(name, parent.__path__ if parent is not None else None)
    if spec is None or spec.origin is None or spec.submodule_search_locations is None:
        return None
    parsed = _read_exports(Path(spec.origin), name)
    if parsed is None:
        return None
    exports, constants = parsed
    module = types.ModuleType(name)
    module.__spec__ = spec
    module.__file__ = spec.origin
    module.__path__ = list(spec.submodule_search_locations or [])
    module.__package__ = name
    module.__dict__.update(constants)

    def resolve(attribute: str) -> object:
        if attribute not in exports:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        source, original = exports[attribute]
        # `from . import types` names a submodule of this package itself.
        value = (
            importlib.import_module(f"{name}.{original}")
            if source == name
            else getattr(importlib.import_module(source), original)
        )
        setattr(module, attribute, value)
        return value

    module.__getattr__ = resolve  # type: ignore[method-assign]
    return module


def install_lazy_packages(names: tuple[str, ...]) -> bool:
    """Register lazy stand-ins for the packages ``names`` (parents first) unless any is already
    imported or cannot be made lazy; True when they are in place."""
    if any(name in sys.modules for name in names):
        return False
    modules: dict[str, types.ModuleType] = {}
    for name in names:
        parent_name = name.rpartition(".")[0]
        module = lazy_package(name, modules.get(parent_name))
        if module is None:
            return False
        modules[name] = module
    sys.modules.update(modules)
    for name, module in modules.items():  # as an import binds a subpackage on its parent
        parent_name, _, child = name.rpartition(".")
        if parent_name in modules:
            setattr(modules[parent_name], child, module)
    return True


class _BeforeLancedb:
    """A meta-path finder that finds nothing: it installs the lazy packages when lancedb is looked up."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "lancedb":
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(self)
            install_lazy_rest_client()


_HOOK = _BeforeLancedb()


def install_import_hook() -> None:
    """Install the lazy packages when lancedb is first imported (at once if it already is)."""
    if "lancedb" in sys.modules:
        return
    if _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)


def install_lazy_rest_client() -> bool:
    """Register the lazy packages unless any is already imported; True when they are in place."""
    return install_lazy_packages(LAZY_PACKAGES)
