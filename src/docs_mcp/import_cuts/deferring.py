"""A module executed with its by-name imports of some modules *deferred*: those names (and plain
aliases of them) become module attributes resolved on first access, and its annotations are
compiled as strings (the ``annotations`` future) so that classes may still name them. Used for
``lance_namespace`` (:mod:`docs_mcp.import_cuts`, which says why).

It checks the shape of the source it was measured against: the module may use the deferred names
only in annotations, and may not define a class that reads annotations (decorated, or with
annotated fields) nor its own module ``__getattr__``. Otherwise (a future version) :func:`deferring`
gives None and the module imports the ordinary way."""

from __future__ import annotations
import __future__ as future_statements

import ast
import importlib.abc
import importlib.machinery
import types
from collections.abc import Iterable
from pathlib import Path

from docs_mcp.import_cuts.lazy import Exports, LoaderFor, resolver

__all__ = ["DeferringLoader", "deferring", "deferring_code"]


def _annotation_free(tree: ast.Module) -> Iterable[ast.AST]:
    """Every node of ``tree`` outside annotations (which compile to strings, see the module)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns"):
                continue
            children = value if isinstance(value, list) else [value]
            stack.extend(child for child in children if isinstance(child, ast.AST))


def deferring_code(
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


class DeferringLoader(importlib.abc.Loader):
    """Executes a module's code made by :func:`deferring_code`."""

    def __init__(self, code: types.CodeType, deferred: Exports) -> None:
        self._code = code
        self._deferred = deferred

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__getattr__ = resolver(module, self._deferred)  # type: ignore[method-assign]
        deferred = self._deferred
        module.__dir__ = lambda: sorted({*module.__dict__, *deferred})  # type: ignore[method-assign]
        exec(self._code, module.__dict__)  # the module's own source, less the deferred imports


def deferring(sources: frozenset[str]) -> LoaderFor:
    """A :data:`LoaderFor` executing a module with its imports from ``sources`` deferred (None when
    its source is not of the shape measured: the ordinary import)."""

    def loader_for(spec: importlib.machinery.ModuleSpec) -> importlib.abc.Loader | None:
        if spec.origin is None or not spec.origin.endswith(".py"):
            return None
        source = Path(spec.origin).read_text(encoding="utf-8")
        made = deferring_code(source, spec.origin, sources)
        return None if made is None else DeferringLoader(*made)

    return loader_for
