"""Python API reference read from source with griffe (statically: the package is never imported).

What a mkdocstrings ``::: pkg.mod.Name`` stub or a Sphinx ``autoclass`` directive stands for, made
of the source inside the repository folder: each documented object becomes an ``ApiEntry`` (its
name, the anchor the site gives it, its signature and docstring sections as lines of markup, its
members). ``api_markup.py`` renders the lines in the page's own markup (markdown or
reStructuredText) so the page reader turns them into text like the rest of the page.

griffe logs what it cannot parse; that log is silenced while it works (nothing reaches stderr),
and anything griffe raises on a bad package becomes a problem string, never an exception.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import griffe

from docs_mcp.parse.api_markup import Markup, docstring_lines, signature_lines

__all__ = ["ApiEntry", "ApiOptions", "ApiSource"]

_MAX_DEPTH = 3  # a class inside a class inside a module: deeper members are not shown
_STYLES = ("google", "numpy", "sphinx")


@dataclass(frozen=True)
class ApiOptions:
    """Which members an entry shows, from the directive's options.

    ``members``: True all public documented members, False none, a tuple exactly those (in that
    order, private ones too); None: the reader's default (all for mkdocstrings, none for autodoc).
    """

    members: tuple[str, ...] | bool | None = None
    inherited: bool = False
    undocumented: bool = False
    exclude: frozenset[str] = frozenset()
    submodules: bool = False


@dataclass
class ApiEntry:
    """One documented object: ``anchor`` is its dotted path as the page documents it."""

    name: str
    anchor: str
    kind: str  # module, class, function, attribute, ...
    body: list[str]  # signature and docstring, lines of the page's markup
    children: list[ApiEntry] = field(default_factory=list)


class ApiSource:
    """The packages under ``search_paths`` (folders holding top-level packages), loaded on first use."""

    def __init__(
        self, search_paths: Sequence[Path], docstring_style: str | None = None, root: Path | None = None
    ) -> None:
        self.search_paths = [path for path in search_paths if path.is_dir()]
        # Every file read must be inside ``root`` (the repository folder): a ``.pth`` file in a search
        # path or a symbolic link could point griffe elsewhere.
        self.roots = [root.resolve()] if root is not None else [path.resolve() for path in self.search_paths]
        self.style = docstring_style if docstring_style in _STYLES else None
        self._loader = griffe.GriffeLoader(
            search_paths=self.search_paths, allow_inspection=False, store_source=False
        )
        self._loaded: dict[str, str | None] = {}  # top-level package -> None, or why it did not load

    def document(
        self,
        target: str,
        options: ApiOptions,
        markup: Markup,
        current_module: str | None = None,
    ) -> tuple[ApiEntry | None, str | None]:
        """The entry for ``target`` (a dotted path; tried under ``current_module`` first), or None
        and why it cannot be resolved. Raises nothing."""
        with _quiet():
            try:
                found, problem = self._find(target, current_module)
                if found is None:
                    return None, problem
                path, obj = found
                entry = self._entry(obj, path, options, markup, 0, explicit=True)
                if not entry.body and not entry.children and not options.undocumented:
                    # Nothing documented: the public members' signatures are still the reference.
                    undocumented = replace(options, undocumented=True)
                    entry = self._entry(obj, path, undocumented, markup, 0, explicit=True)
                return entry, None
            except Exception as error:  # griffe on arbitrary source may raise anything
                return None, f"griffe could not read it ({type(error).__name__}: {error})"

    def _find(self, target: str, current_module: str | None) -> tuple[tuple[str, Any] | None, str | None]:
        target = target.strip().lstrip("~.")
        candidates = [f"{current_module}.{target}", target] if current_module else [target]
        problem: str | None = None
        for path in candidates:
            top = path.split(".")[0]
            problem = self._load(top)
            if problem is not None:
                continue
            obj = self._lookup(path)
            if obj is not None:
                return (path, obj), None
            problem = f"no object {path!r} in the source of {top!r}"
        return None, problem

    def _load(self, top: str) -> str | None:
        if top not in self._loaded:
            self._loaded[top] = self._load_package(top)
        return self._loaded[top]

    def _load_package(self, top: str) -> str | None:
        if not self.search_paths:
            return f"no Python source folder to read {top!r} from"
        try:
            module = self._loader.load(top, try_relative_path=False)
        except (ImportError, griffe.GriffeError, OSError, SyntaxError, ValueError) as error:
            where = ", ".join(str(path) for path in self.search_paths)
            return f"package {top!r} not found in {where} ({type(error).__name__})"
        if isinstance(module, griffe.Module):
            outside = self._outside(module)
            if outside is not None:
                del self._loader.modules_collection.members[top]
                return f"package {top!r} has a file outside the repository folder ({outside}); not read"
            self._add_namespace_folders(module)
        self._loader.resolve_aliases(implicit=True, external=False)
        return None

    def _outside(self, module: griffe.Module) -> str | None:
        """The first file of ``module`` (or its submodules) that resolves outside the roots."""
        stack = [module]
        while stack:
            current = stack.pop()
            filepath = current.filepath
            for path in filepath if isinstance(filepath, list) else [filepath]:
                if isinstance(path, Path) and not any(path.resolve().is_relative_to(r) for r in self.roots):
                    return str(path)
            stack.extend(m for m in current.modules.values() if isinstance(m, griffe.Module))
        return None

    def _add_namespace_folders(self, package: griffe.Module) -> None:
        """Sub-folders without ``__init__.py`` (namespace packages, ``flask/sansio``), which griffe
        does not load inside a package, visited file by file."""
        filepath = package.filepath
        if not isinstance(filepath, Path) or filepath.name != "__init__.py":
            return
        for folder in sorted(p for p in filepath.parent.iterdir() if p.is_dir() and p.name.isidentifier()):
            if folder.name in package.members or (folder / "__init__.py").exists():
                continue
            files = [
                file
                for file in sorted(folder.glob("*.py"))
                if any(file.resolve().is_relative_to(root) for root in self.roots)
            ]
            if not files:
                continue
            space = griffe.Module(
                folder.name,
                filepath=folder,
                parent=package,
                lines_collection=self._loader.lines_collection,
                modules_collection=self._loader.modules_collection,
            )
            package.set_member(folder.name, space)
            for file in files:
                code = file.read_text(encoding="utf-8", errors="replace")
                module = griffe.visit(
                    file.stem,
                    file,
                    code,
                    parent=space,
                    lines_collection=self._loader.lines_collection,
                    modules_collection=self._loader.modules_collection,
                )
                space.set_member(file.stem, module)

    def _lookup(self, path: str) -> Any:
        try:
            obj = self._loader.modules_collection[path]
        except (KeyError, griffe.AliasResolutionError, griffe.CyclicAliasError):
            return None
        return _final(obj)

    # -- entries -------------------------------------------------------------------------------
    def _entry(
        self, obj: Any, path: str, options: ApiOptions, markup: Markup, depth: int, explicit: bool
    ) -> ApiEntry:
        kind = str(obj.kind.value)
        body = signature_lines(obj, markup) + docstring_lines(self._sections(obj), markup)
        entry = ApiEntry(obj.name, path, kind, body)
        if depth < _MAX_DEPTH and kind in ("module", "class"):
            for name, member in self._members(obj, options, explicit):
                child = self._entry(member, f"{path}.{name}", _nested(options), markup, depth + 1, False)
                if child.body or child.children or options.undocumented:
                    entry.children.append(child)
        return entry

    def _members(self, obj: Any, options: ApiOptions, explicit: bool) -> list[tuple[str, Any]]:
        wanted = options.members
        if wanted is None:
            wanted = True
        if wanted is False:
            return []
        pool = dict(obj.all_members if options.inherited and obj.is_class else obj.members)
        if isinstance(wanted, tuple):
            return [(name, m) for name in wanted if (m := _final_or_none(pool.get(name))) is not None]
        exports = set(obj.exports or ()) if obj.is_module and obj.exports is not None else set()
        chosen: list[tuple[int, str, Any]] = []
        for name, member in pool.items():
            if name.startswith("_") or name in options.exclude:
                continue
            if member.is_alias and obj.is_module and name not in exports:
                continue  # an import, not this module's own (unless ``__all__`` names it)
            target = _final_or_none(member)
            if target is None or (target.is_module and not options.submodules):
                continue
            if not options.undocumented and not target.docstring and not target.is_class:
                continue
            inherited = member.is_alias and obj.is_class
            order = (1 << 30) + len(chosen) if inherited else (getattr(member, "lineno", None) or 0)
            chosen.append((order, name, target))
        chosen.sort(key=lambda item: item[0])
        return [(name, target) for _, name, target in chosen]

    def _sections(self, obj: Any) -> list[Any]:
        docstring = obj.docstring
        if docstring is None or not docstring.value.strip():
            return []
        if self.style is not None:
            return list(docstring.parse(self.style))
        style = griffe.infer_docstring_style(docstring)[0]
        return list(docstring.parse(style or "google"))


def _nested(options: ApiOptions) -> ApiOptions:
    """A member's own members: all of them (a listed class shows its methods), same filters."""
    return ApiOptions(True, options.inherited, options.undocumented, options.exclude, False)


def _final(obj: Any) -> Any:
    return obj.final_target if obj.is_alias else obj


def _final_or_none(obj: Any) -> Any:
    if obj is None:
        return None
    try:
        return _final(obj)
    except (griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


@contextmanager
def _quiet() -> Iterator[None]:
    """griffe's log off (its warnings about docstrings would reach stderr through logging's
    last-resort handler)."""
    log = logging.getLogger("griffe")
    was = log.disabled
    log.disabled = True
    try:
        yield
    finally:
        log.disabled = was
