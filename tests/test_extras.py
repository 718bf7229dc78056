"""The module -> extra table agrees with the extras the package declares (pyproject.toml)."""

from __future__ import annotations

import importlib.metadata
import re

from docs_mcp import DISTRIBUTION
from docs_mcp.extras import EXTRA_OF_MODULE, install_line, install_line_from, missing_extra


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
