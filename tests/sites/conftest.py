"""Each evaldata site set is built once per session, raw and after ``fix --write`` on a copy, for
every test module of this folder (``site_build``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from site_builds import SiteBuild, page_hashes
from site_questions import DOCS

from docs_mcp.cli.main import main


@pytest.fixture(scope="session")
def site_build(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], SiteBuild]:
    """``site_build(name)``: the set copied, built raw, fixed with ``fix --write`` and built again;
    done on the first call for that set, the same result after. Skips when the set is missing."""
    done: dict[str, SiteBuild] = {}

    def build(name: str) -> SiteBuild:
        if name not in done:
            source = evaldata_dir / "sites" / name
            if not source.is_dir():
                pytest.skip(f"no sites/{name} in {evaldata_dir}")
            work = tmp_path_factory.mktemp(name)
            shutil.copytree(source, work / name)
            docs = work / name / DOCS[name][0]
            before = page_hashes(docs)
            raw, fixed = work / "raw-index", work / "fixed-index"
            assert main(["build", "--docs-dir", str(docs), "--out", str(raw), "--quiet"]) == 0
            assert main(["fix", "--docs-dir", str(docs), "--write"]) == 0
            assert main(["build", "--docs-dir", str(docs), "--out", str(fixed), "--quiet"]) == 0
            done[name] = SiteBuild(name, docs, raw, fixed, before)
        return done[name]

    return build
