"""lancedb imports without what a local index never uses (docs_mcp.store.lancedb_import), and still
works: every replaced module still gives its real names, and a module not of the measured shape is
imported the ordinary way."""

from __future__ import annotations

import importlib.machinery
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from docs_mcp.store import lancedb_import
from docs_mcp.store.lancedb_import import _deferring_code, _lazy_package_loader, lazy_package

PROBE = """
import json, sys, time
import docs_mcp.store
import lancedb
import pyarrow as pa
installed = "lance_namespace_urllib3_client" in sys.modules and hasattr(
    sys.modules["lance_namespace_urllib3_client"], "__getattr__")
loaded = sum(1 for m in sys.modules if m.startswith("lance_namespace_urllib3_client.api."))
models = sum(1 for m in sys.modules if m.startswith("lance_namespace_urllib3_client.models."))
rerankers = sorted(m for m in sys.modules if m.startswith("lancedb.rerankers."))
overrides_after_import = "overrides" in sys.modules
db = lancedb.connect(sys.argv[1])
table = db.create_table("t", pa.table({"id": ["a", "b"], "text": ["create a link", "delete a domain"]}))
table.create_fts_index("text")
hits = [row["id"] for row in table.search("link", query_type="fts").limit(5).to_list()]
from lance_namespace_urllib3_client.models import JsonArrowSchema
from lance_namespace_urllib3_client import ApiClient, __version__
import lance_namespace
from lance_namespace import CreateTableRequest, CreateEmptyTableRequest, LanceNamespace, connect
from lance_namespace_urllib3_client.models.create_table_request import CreateTableRequest as Real
namespace_names = all(getattr(lance_namespace, name) is not None for name in lance_namespace.__all__)
import lancedb.rerankers
from lancedb.rerankers import LinearCombinationReranker, RRFReranker
import overrides, lancedb.db
print(json.dumps({
    "installed": installed, "api_modules": loaded, "model_modules": models, "hits": hits,
    "lazy_names_resolve": [JsonArrowSchema.__name__, ApiClient.__name__, bool(__version__)],
    "namespace": [type(lance_namespace.__spec__.loader).__name__, namespace_names,
                  CreateTableRequest is Real is CreateEmptyTableRequest, LanceNamespace.__name__,
                  callable(connect), "CreateTableRequest" in dir(lance_namespace)],
    "rerankers": [rerankers, LinearCombinationReranker.__module__, RRFReranker.__name__],
    "overrides": [overrides_after_import, overrides.EnforceOverrides.__module__,
                  lancedb.db.LanceDBConnection.open_table.__override__],
}))
"""


def test_lancedb_works_with_its_unused_parts_deferred_and_their_names_still_resolve(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", PROBE, str(tmp_path / "db")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["installed"] is True
    assert report["api_modules"] == 0, "the REST API modules were executed at import"
    # lancedb itself imports ~20 of the client's models; lance_namespace's ~110 re-exports are deferred.
    assert 0 < report["model_modules"] < 40
    assert report["hits"] == ["a"]
    assert report["lazy_names_resolve"] == ["JsonArrowSchema", "ApiClient", True]
    assert report["namespace"] == ["_DeferringLoader", True, True, "LanceNamespace", True, True]
    # Only what lancedb's query module imports by module path; the rest resolve on first use.
    assert report["rerankers"] == [
        ["lancedb.rerankers.base", "lancedb.rerankers.rrf", "lancedb.rerankers.util"],
        "lancedb.rerankers.linear_combination",
        "RRFReranker",
    ]
    if sys.version_info < (3, 12):  # lancedb's 3.12+ markers while it imports; the real package after
        assert report["overrides"] == [False, "overrides.enforce", True]


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
    assert busy is not None and _lazy_package_loader(busy) is None


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
    assert _deferring_code(source, "probe.py", _MODELS) is None


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
    made = _deferring_code(source, "probe.py", frozenset({"deferring_probe_client.part"}))
    assert made is not None
    code, deferred = made
    assert deferred == {
        "Thing": ("deferring_probe_client.part", "Thing"),
        "VALUE": ("deferring_probe_client.part", "VALUE"),
        "Alias": ("deferring_probe_client.part", "Thing"),
    }
    module = type(sys)("deferring_probe")
    lancedb_import._DeferringLoader(code, deferred).exec_module(module)
    assert "deferring_probe_client.part" not in sys.modules
    assert module.Interface.get.__annotations__ == {"request": "Thing", "return": "Thing"}
    from deferring_probe_client.part import Thing

    assert module.Alias is Thing and module.Thing is Thing and module.VALUE == 1
    assert {"Thing", "Alias", "Interface"} <= set(dir(module))
