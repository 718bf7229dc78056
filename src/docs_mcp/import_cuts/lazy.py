"""The two mechanisms every import cut is made of: a package whose ``__init__`` names are imported on
first access (a *lazy package*), and a meta-path finder that serves a module with another loader the
first time it is looked up (:class:`ReplacingFinder`). What each cut does with them, and why, is in
:mod:`docs_mcp.import_cuts`."""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = [
    "ExecutedWithin",
    "Exports",
    "LoaderFor",
    "ReplacingFinder",
    "executed_within",
    "install_lazy_packages",
    "lazy_package",
    "lazy_package_loader",
    "resolver",
]

Exports = dict[str, tuple[str, str]]  # exported name -> (module, name in it)
LoaderFor = Callable[[importlib.machinery.ModuleSpec], importlib.abc.Loader | None]


def _read_exports(init_file: Path, package: str) -> tuple[Exports, dict[str, object]] | None:
    """``{exported name: (module, name)}`` and constants of the ``__init__`` of ``package``, or None
    if it does anything else. Relative imports are resolved against ``package``."""
    exports: Exports = {}
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


def resolver(module: types.ModuleType, exports: Exports) -> Callable[[str], object]:
    """A module ``__getattr__`` importing each of ``exports`` on first access (then stored)."""
    name = module.__name__

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

    return resolve


class _LazyPackageLoader(importlib.abc.Loader):
    """Executes nothing of a package's ``__init__``: its names are imported on first access."""

    def __init__(self, exports: Exports, constants: dict[str, object]) -> None:
        self._exports = exports
        self._constants = constants

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__dict__.update(self._constants)
        module.__getattr__ = resolver(module, self._exports)  # type: ignore[method-assign]


def lazy_package_loader(spec: importlib.machinery.ModuleSpec) -> _LazyPackageLoader | None:
    """The loader of a lazy ``spec``, or None when its ``__init__`` is not only imports and constants."""
    if spec.origin is None or spec.submodule_search_locations is None:
        return None
    parsed = _read_exports(Path(spec.origin), spec.name)
    return None if parsed is None else _LazyPackageLoader(*parsed)


def lazy_package(name: str, parent: types.ModuleType | None) -> types.ModuleType | None:
    """A stand-in for package ``name`` whose ``__init__`` names are imported on first access, or
    None when its ``__init__`` is not only imports and constants (or it is not found)."""
    # PathFinder, not importlib.util.find_spec: the latter imports the parent package.
    spec = importlib.machinery.PathFinder.find_spec(name, parent.__path__ if parent is not None else None)
    loader = None if spec is None else lazy_package_loader(spec)
    if spec is None or loader is None:
        return None
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
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


class ExecutedWithin(importlib.abc.Loader):
    """A module's own loader, executing it inside the context manager ``within()``."""

    def __init__(
        self, loader: importlib.abc.Loader, within: Callable[[], contextlib.AbstractContextManager[None]]
    ):
        self._loader = loader
        self._within = within

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        with self._within():
            self._loader.exec_module(module)

    def __getattr__(self, name: str) -> object:  # get_source, get_resource_reader...: the real loader's
        return getattr(self._loader, name)


def executed_within(
    within: Callable[[], contextlib.AbstractContextManager[None]],
) -> LoaderFor:
    """A :data:`LoaderFor` running a source module's own loader within ``within()`` (None for a
    module of another kind: imported the ordinary way)."""

    def loader_for(spec: importlib.machinery.ModuleSpec) -> importlib.abc.Loader | None:
        if not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return None
        return ExecutedWithin(spec.loader, within)

    return loader_for


class ReplacingFinder(importlib.abc.MetaPathFinder):
    """A meta-path finder that finds only the modules it replaces, each the first time it is looked
    up, with the loader ``loaders[name]`` makes from the module's own spec (None: not the shape
    measured, so the ordinary import); it steps aside once every one was looked up."""

    def __init__(self, loaders: dict[str, LoaderFor]) -> None:
        self._pending = dict(loaders)

    def find_spec(
        self, name: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        make = self._pending.pop(name, None)
        if make is None:
            return None
        if not self._pending:
            with contextlib.suppress(ValueError):
                sys.meta_path.remove(self)
        search = list(path) if isinstance(path, Iterable) and not isinstance(path, str) else None
        spec = importlib.machinery.PathFinder.find_spec(name, search)
        loader = None if spec is None else make(spec)
        if spec is None or loader is None:
            return None  # not the shape measured: imported the ordinary way
        spec.loader = loader
        return spec

    def install(self) -> None:
        """First on ``sys.meta_path`` (once)."""
        if self not in sys.meta_path:
            sys.meta_path.insert(0, self)
