"""Import lancedb without paying for what a local index never uses.

``import lancedb`` executes, among others, four things that a local ``.lancedb`` directory never
uses and that ``docs-mcp serve`` pays for at every cold start (measured with ``python -X
importtime`` and in ``benchmarks/test_replacements.py::test_lancedb_import_against_the_plain_import``;
figures in the README's measured table):

- ``lance_namespace_urllib3_client``: an OpenAPI-generated client for remote namespaces, ~300
  modules. Its packages are registered as *lazy packages*: each name their ``__init__`` would import
  is resolved from its submodule on first access.
- ``lance_namespace``'s ``__init__`` imports ~110 of that client's pydantic models by name to
  re-export them (~180 modules; about a fifth of lancedb's import, the largest single cost left after
  the client). It is executed with that one statement *deferred*: those names (and plain aliases of
  them) are resolved on first access instead, and its annotations are compiled as strings
  (the ``annotations`` future) so the abstract ``LanceNamespace`` can name them.
- ``lancedb.rerankers`` imports every reranker integration (cohere, openai, voyageai...); lancedb's
  query module needs only the base class and RRF. It is a lazy package too.
- On Python < 3.12 lancedb decorates ~100 methods with the ``overrides`` package's ``@override``,
  which checks each one at import (disassembling the caller's frame to find the base classes, then
  comparing signatures): about a seventh of lancedb's import. On 3.12+ lancedb uses
  ``typing.override``, a marker, and a plain ``EnforceOverrides`` base. While lancedb's own modules
  execute, ``overrides`` is that: ``typing_extensions.override`` (the marker's backport) and a plain
  class. Afterwards the stand-in is gone and ``import overrides`` gives the real package.

The client's pydantic models that lancedb does import (~20) are built as usual. Kept, measured:
``lancedb.embeddings`` imports every embedding integration too (~5% of lancedb's import), but they
register themselves in lancedb's registry as they are imported, so a lazy package would change what
``get_registry()`` holds.

Anything that does use them still gets the real classes (``tests/store/test_lancedb_import.py``).
Each replacement checks the shape of the source it was measured against: a lazy package's
``__init__`` must hold only imports and constants; a deferring module may use the deferred names
only in annotations, may not define a class that reads annotations (decorated, or with annotated
fields) nor its own module ``__getattr__``. Otherwise (a future version) that module imports the
ordinary way.

``install_import_hook`` (run by ``docs_mcp.store``) costs nothing until lancedb is imported: a
meta-path finder that, the first time ``lancedb`` is looked up, installs the client's lazy packages,
and that serves the other replacements when they are first imported; then it steps aside. Code
that never imports lancedb (``docs-mcp --help``, validation) never reads those files.
"""

from __future__ import annotations
import __future__ as future_statements

import ast
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

# Library versions these replacements were measured against (see tests/test_replacements.py).
MEASURED_WITH = {
    "lancedb": "0.40",
    "lance-namespace": "0.13",
    "lance-namespace-urllib3-client": "0.13",
    "overrides": "7.7",
    "python": "3.11",
}

LAZY_PACKAGES = (
    "lance_namespace_urllib3_client",
    "lance_namespace_urllib3_client.api",
    "lance_namespace_urllib3_client.models",
)
# Packages made lazy when first imported (their parent is a real package then).
LAZY_SUBPACKAGES = ("lancedb.rerankers",)
# module -> the modules whose by-name imports it executes deferred.
DEFERRING_MODULES = {"lance_namespace": frozenset({"lance_namespace_urllib3_client.models"})}

Exports = dict[str, tuple[str, str]]  # exported name -> (module, name in it)


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


def _resolver(module: types.ModuleType, exports: Exports) -> Callable[[str], object]:
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
        module.__getattr__ = _resolver(module, self._exports)  # type: ignore[method-assign]


def _lazy_package_loader(spec: importlib.machinery.ModuleSpec) -> _LazyPackageLoader | None:
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
    loader = None if spec is None else _lazy_package_loader(spec)
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


def _annotation_free(tree: ast.Module) -> Iterable[ast.AST]:
    """Every node of ``tree`` outside annotations (which compile to strings, see below)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns"):
                continue
            children = value if isinstance(value, list) else [value]
            stack.extend(child for child in children if isinstance(child, ast.AST))


def _deferring_code(
    source: str, origin: str, sources: frozenset[str]
) -> tuple[types.CodeType, Exports] | None:
    """The module ``source`` compiled without its ``from SOURCE import NAME`` statements for the
    modules ``sources`` (and top-level ``ALIAS = NAME`` of those names), which become module
    attributes resolved on first access; None unless that is all it does with them (module doc)."""
    tree = ast.parse(source, origin)
    deferred: Exports = {}
    kept: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and not node.level and node.module in sources:
            if any(alias.name == "*" for alias in node.names):
                return None
            deferred.update({alias.asname or alias.name: (node.module, alias.name) for alias in node.names})
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Name)
            and node.value.id in deferred
        ):
            deferred[node.targets[0].id] = deferred[node.value.id]
        else:
            kept.append(node)
    tree.body = kept
    for child in _annotation_free(tree):
        uses_deferred = isinstance(child, ast.Name) and child.id in deferred
        reads_annotations = isinstance(child, ast.ClassDef) and bool(
            child.decorator_list or child.keywords or any(isinstance(n, ast.AnnAssign) for n in child.body)
        )
        own_getattr = isinstance(child, ast.FunctionDef) and child.name in ("__getattr__", "__dir__")
        if uses_deferred or reads_annotations or own_getattr:
            return None
    if not deferred:
        return None
    flags = future_statements.annotations.compiler_flag
    return compile(tree, origin, "exec", flags=flags, dont_inherit=True), deferred


class _DeferringLoader(importlib.abc.Loader):
    """Executes a module's code made by :func:`_deferring_code`."""

    def __init__(self, code: types.CodeType, deferred: Exports) -> None:
        self._code = code
        self._deferred = deferred

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__getattr__ = _resolver(module, self._deferred)  # type: ignore[method-assign]
        deferred = self._deferred
        module.__dir__ = lambda: sorted({*module.__dict__, *deferred})  # type: ignore[method-assign]
        exec(self._code, module.__dict__)  # the module's own source, less the deferred imports


def _deferring_loader(spec: importlib.machinery.ModuleSpec) -> _DeferringLoader | None:
    if spec.origin is None or not spec.origin.endswith(".py"):
        return None
    source = Path(spec.origin).read_text(encoding="utf-8")
    made = _deferring_code(source, spec.origin, DEFERRING_MODULES[spec.name])
    return None if made is None else _DeferringLoader(*made)


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


class _EnforceNothing:
    """lancedb's ``EnforceOverrides`` base on Python 3.12+: a plain class."""


@contextlib.contextmanager
def _override_markers() -> Iterator[None]:
    """While lancedb imports, ``overrides`` is what lancedb itself uses on Python 3.12+ (module doc)."""
    from typing_extensions import override  # typing.override's backport: marks, checks nothing

    markers = types.ModuleType("overrides", "lancedb's Python 3.12+ override markers (docs_mcp.store).")
    markers.__dict__.update(override=override, overrides=override, final=typing.final)
    markers.__dict__["EnforceOverrides"] = _EnforceNothing
    sys.modules["overrides"] = markers
    try:
        yield
    finally:
        if sys.modules.get("overrides") is markers:  # later imports get the real package
            del sys.modules["overrides"]


def _lancedb_loader(spec: importlib.machinery.ModuleSpec) -> importlib.abc.Loader | None:
    """Installs the client's lazy packages; lancedb's loader within :func:`_override_markers`, or
    None (the ordinary import) where lancedb does not import ``overrides`` or it is already imported."""
    install_lazy_rest_client()
    if sys.version_info >= (3, 12) or "overrides" in sys.modules:
        return None
    if not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
        return None
    return ExecutedWithin(spec.loader, _override_markers)


LoaderFor = Callable[[importlib.machinery.ModuleSpec], importlib.abc.Loader | None]


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


_HOOK = ReplacingFinder(
    {
        "lancedb": _lancedb_loader,
        **{name: _lazy_package_loader for name in LAZY_SUBPACKAGES},
        **{name: _deferring_loader for name in DEFERRING_MODULES},
    }
)


def install_import_hook() -> None:
    """Install the replacements when lancedb is first imported (none if it already is)."""
    if "lancedb" in sys.modules:
        return
    if _HOOK not in sys.meta_path:
        sys.meta_path.insert(0, _HOOK)


def install_lazy_rest_client() -> bool:
    """Register the client's lazy packages unless any is already imported; True when they are in place."""
    return install_lazy_packages(LAZY_PACKAGES)
