"""The two mechanisms of the import cuts (docs_mcp.import_cuts.lazy, .deferring): a lazy package resolves
its names on first use, a deferring module its deferred names; a module of another shape than the one
measured is left to the ordinary import."""

from __future__ import annotations

import importlib.machinery
import sys
import textwrap
from pathlib import Path

import pytest

from docs_mcp.import_cuts.deferring import DeferringLoader, deferring_code
from docs_mcp.import_cuts.lazy import lazy_package, lazy_package_loader


def _package(root: Path, name: str, init: str) -> None:
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(textwrap.dedent(init), encoding="utf-8")
    (root / name / "part.py").write_text("class Thing:\n    pass\nVALUE = 1\n", encoding="utf-8")


def test_a_lazy_package_resolves_on_first_use_and_one_of_another_shape_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    _package(
        tmp_path, "lazy_probe_plain", "'''Doc.'''\nfrom .part import Thing, VALUE\n__all__ = ['Thing']\n"
    )
    _package(tmp_path, "lazy_probe_busy", "from .part import Thing\ndef helper():\n    return Thing\n")
    module = lazy_package("lazy_probe_plain", None)
    assert module is not None and module.__all__ == ["Thing"]
    monkeypatch.setitem(sys.modules, "lazy_probe_plain", module)
    assert "lazy_probe_plain.part" not in sys.modules
    assert module.Thing.__module__ == "lazy_probe_plain.part" and module.VALUE == 1
    with pytest.raises(AttributeError):
        _ = module.missing
    assert lazy_package("lazy_probe_busy", None) is None
    busy = importlib.machinery.PathFinder.find_spec("lazy_probe_busy")
    assert busy is not None and lazy_package_loader(busy) is None


_MODELS = frozenset({"client.models"})


@pytest.mark.parametrize(
    "body",
    [
        "DEFAULT = Request()",  # used at import
        "def make(request=Request):\n    return request",  # a default value is evaluated
        "def make():\n    return Request()",  # a body reads the module's globals, not __getattr__
        "class Row:\n    name: Request",  # a class reading its annotations (dataclass, pydantic)
        "@decorated\nclass Row:\n    pass",
        "def __getattr__(name):\n    return name",  # the module's own
        "Request = None",  # rebinds a deferred name
    ],
)
def test_a_module_using_its_deferred_names_beyond_annotations_is_imported_the_ordinary_way(body: str) -> None:
    source = f"from client.models import Request, Response\n{body}\n"
    assert deferring_code(source, "probe.py", _MODELS) is None


def test_a_deferring_module_resolves_its_deferred_names_and_aliases_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    _package(tmp_path, "deferring_probe_client", "")
    source = textwrap.dedent(
        """
        from deferring_probe_client.part import Thing, VALUE
        from abc import ABC, abstractmethod
        Alias = Thing
        class Interface(ABC):
            @abstractmethod
            def get(self, request: Thing) -> Thing:
                ...
        """
    )
    made = deferring_code(source, "probe.py", frozenset({"deferring_probe_client.part"}))
    assert made is not None
    code, deferred = made
    assert deferred == {
        "Thing": ("deferring_probe_client.part", "Thing"),
        "VALUE": ("deferring_probe_client.part", "VALUE"),
        "Alias": ("deferring_probe_client.part", "Thing"),
    }
    module = type(sys)("deferring_probe")
    DeferringLoader(code, deferred).exec_module(module)
    assert "deferring_probe_client.part" not in sys.modules
    assert module.Interface.get.__annotations__ == {"request": "Thing", "return": "Thing"}
    from deferring_probe_client.part import Thing

    assert module.Alias is Thing and module.Thing is Thing and module.VALUE == 1
    assert {"Thing", "Alias", "Interface"} <= set(dir(module))
