"""The module -> extra table agrees with the extras the package declares (pyproject.toml)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

from docs_mcp import DISTRIBUTION
from docs_mcp.extras import EXTRA_OF_MODULE, install_line, install_line_from, missing_extra

REPO_ROOT = Path(__file__).resolve().parents[1]


def _declared_extras() -> dict[str, str]:
    """distribution name (normalised) -> extra, from the installed package's metadata."""
    declared: dict[str, str] = {}
    for requirement in importlib.metadata.requires(DISTRIBUTION) or []:
        found = re.match(r"([A-Za-z0-9_.-]+).*extra == ['\"]([a-z]+)['\"]", requirement)
        if found:
            declared[_normalised(found.group(1))] = found.group(2)
    return declared


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_module_in_the_table_comes_from_a_distribution_of_that_extra() -> None:
    declared = _declared_extras()
    providers = importlib.metadata.packages_distributions()
    for module, extra in EXTRA_OF_MODULE.items():
        distributions = {_normalised(d) for d in providers.get(module, [])}
        assert any(declared.get(d) == extra for d in distributions), (module, extra, distributions)


def test_every_declared_extra_has_a_module_in_the_table() -> None:
    assert set(_declared_extras().values()) == set(EXTRA_OF_MODULE.values())


def test_a_missing_module_of_an_extra_names_the_install_command() -> None:
    error = missing_extra(ModuleNotFoundError("No module named 'yaml'", name="yaml"), "`docs-mcp build`")
    assert error is not None and error.extra == "build"
    assert str(error) == (
        f"`docs-mcp build` needs the build extra (no module named 'yaml'): {install_line('build')}"
    )


def test_the_install_line_names_where_the_package_was_installed_from() -> None:
    """Before the first release the package index has no such project: a line naming the git URL,
    checkout or wheel the package came from (its PEP 610 direct_url.json) is one that works."""
    git = {"url": "https://github.com/acme/docs-mcp", "vcs_info": {"vcs": "git", "commit_id": "0" * 40}}
    assert install_line_from(None, "local", "build") == "pip install 'docs-mcp-index[build,local]'"
    assert install_line_from(None) == "pip install docs-mcp-index"
    assert install_line_from(git, "build") == (
        "pip install 'docs-mcp-index[build] @ git+https://github.com/acme/docs-mcp'"
    )
    pinned = {**git, "vcs_info": {**git["vcs_info"], "requested_revision": "v1.2.0"}}
    assert install_line_from(pinned, "artifact").endswith("@ git+https://github.com/acme/docs-mcp@v1.2.0'")
    wheel = {"url": "file:///tmp/dist/docs_mcp_index-1.0-py3-none-any.whl", "archive_info": {}}
    assert install_line_from(wheel, "build") == f"pip install 'docs-mcp-index[build] @ {wheel['url']}'"


def test_a_missing_module_of_no_extra_is_not_blamed_on_one() -> None:
    assert missing_extra(ModuleNotFoundError("No module named 'lancedb'", name="lancedb"), "x") is None


# Imported by src/ but installed through a declared dependency that brings them (and pins them in
# every lock): the MCP SDK brings its protocol models, anyio, starlette and uvicorn; oras brings
# requests; pydantic brings typing_extensions.
_BROUGHT_BY = {
    "anyio": "mcp",
    "mcp_types": "mcp",
    "starlette": "mcp",
    "uvicorn": "mcp",
    "requests": "oras",
    "typing_extensions": "pydantic",
}


def test_every_package_src_imports_is_declared_or_brought_by_a_declared_one() -> None:
    """An import of a package only the dev lock installs passes every test and breaks the images:
    ``import httpx`` (the dev tools' client; openai itself uses httpx2) failed the build image."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"]]
    wanted += [r for extra, rs in project["optional-dependencies"].items() if extra != "dev" for r in rs]
    declared = {_normalised(re.split(r"[<>=!~\[ ;]", requirement)[0]) for requirement in wanted}
    providers = importlib.metadata.packages_distributions()
    undeclared: dict[str, set[str]] = {}
    for path in (REPO_ROOT / "src").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.partition(".")[0]
                if top in sys.stdlib_module_names or top in ("docs_mcp", "__future__"):
                    continue
                distributions = {_normalised(d) for d in providers.get(top, [])}
                if not distributions & declared and _BROUGHT_BY.get(top) not in declared:
                    undeclared.setdefault(top, set()).add(path.relative_to(REPO_ROOT).as_posix())
    assert undeclared == {}
