"""``fix --write`` on real sets changes no page (issues 31 and 32): every documentation site of the
evaldata ``sites/`` (each generator's source, also with ``--inline``) and the raw dub and mistral
SDK folders (plain folders: by default manifests only). Every page is hashed before and after; the
SDK folders are named after themselves, never after a README section such as "Development"."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from docs_mcp.cli.main import main

pytestmark = pytest.mark.timeout(600)

# Each set's docs folder (sites/README.md).
SITE_DOCS = {
    "async-book": "src",
    "cline": "docs",
    "devtron": "docs",
    "docsy": "docsy.dev/content/en",
    "expressive-code": "docs/src/content/docs",
    "flask": "docs",
    "httpx": "docs",
    "openai-agents": "docs",
    "swr": "pages",
    "testing-library": "docs",
    "typer": "docs",
    "vitest": "docs",
}


@pytest.fixture(autouse=True)
def plan_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCS_MCP_CACHE_DIR", str(tmp_path / "cache"))


def page_hashes(root: Path) -> dict[str, str]:
    """The sha256 of every file under ``root`` that is not a docs manifest."""
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name != ".docs-mcp.json"
    }


@pytest.mark.parametrize("name", sorted(SITE_DOCS))
@pytest.mark.parametrize("inline", [False, True], ids=["manifests", "inline"])
def test_fix_write_changes_no_page_of_a_site(
    name: str, inline: bool, evaldata_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = evaldata_dir / "sites" / name
    if not source.is_dir():
        pytest.skip(f"no sites/{name} in {evaldata_dir}")
    work = Path(shutil.copytree(source, tmp_path / name))
    before = page_hashes(work)
    docs = work / SITE_DOCS[name]
    assert main(["fix", "--docs-dir", str(docs), "--write", *(["--inline"] if inline else [])]) == 0
    after = page_hashes(work)
    assert after == before, sorted(p for p in after if after[p] != before.get(p))
    assert (docs / ".docs-mcp.json").is_file()
    if inline:
        assert "no page is edited, as the docs are a site generator's source" in capsys.readouterr().err


@pytest.mark.parametrize("sdk", ["dub", "mistral"])
def test_fix_write_on_a_raw_sdk_folder_writes_manifests_only_and_names_it_after_the_folder(
    sdk: str, evaldata_dir: Path, tmp_path: Path
) -> None:
    docs = Path(shutil.copytree(evaldata_dir / "corpora" / sdk, tmp_path / sdk))
    before = page_hashes(docs)
    assert main(["fix", "--docs-dir", str(docs)]) == 0
    assert main(["fix", "--docs-dir", str(docs), "--write"]) == 0  # applies the dry run's plan
    after = page_hashes(docs)
    assert after == before, sorted(p for p in after if after[p] != before.get(p))
    root = json.loads((docs / ".docs-mcp.json").read_text(encoding="utf-8"))
    assert root["mcpServerInstructions"].startswith(f"Documentation of {sdk} (")
    written = sorted(p.relative_to(docs).as_posix() for p in docs.rglob(".docs-mcp.json"))
    assert written[0] == ".docs-mcp.json" and all(p.endswith("/.docs-mcp.json") for p in written[1:])
