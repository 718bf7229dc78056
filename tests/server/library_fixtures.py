"""Real indexes served together by the multi-library tests: each corpus built once per session.

Import the fixtures into a test module (``from library_fixtures import *``-style, by name).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest
from server_support import CURSOR_KEY

from docs_mcp.indexing.pipeline import BuildOptions, build
from docs_mcp.server.hub.opening import ReadyHub, open_hub
from docs_mcp.server.hub.specs import parse_index_specs
from docs_mcp.server.hub.union import UNION_ENV, UnionMode
from docs_mcp.store.cache_home import CACHE_ENV
from testkit.evaldata_sets import materialize_sdk_corpora, stage_claude_docs
from testkit.index_fixtures import SDK_FILES, write_docs
from testkit.library_set import union_ready


@pytest.fixture(scope="session")
def claude_index(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The claude-docs labelled set, staged as the quality gate stages it, built full text."""
    root = tmp_path_factory.mktemp("lib-claude")
    docs = stage_claude_docs(evaldata_dir, root / "docs")
    build(BuildOptions(docs_dir=docs, out=root / "out", description="Claude developer platform docs"))
    return root / "out"


@pytest.fixture(scope="session")
def sdk_index(evaldata_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The dub and mistral SDK corpora as one index (the SDK labelled set's ids), built full text."""
    root = tmp_path_factory.mktemp("lib-sdks")
    docs = materialize_sdk_corpora(evaldata_dir / "corpora", root / "docs")
    build(BuildOptions(docs_dir=docs, out=root / "out", description="dub and mistral SDK references"))
    return root / "out"


@pytest.fixture(scope="session")
def example_v1(examples_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/docs declaring version 1.0, without its retries guide (so versions answer differently)."""
    root = tmp_path_factory.mktemp("lib-example-v1")
    shutil.copytree(examples_docs, root / "docs")
    (root / "docs" / "guides" / "retries.md").unlink()
    build(BuildOptions(docs_dir=root / "docs", out=root / "out", description="Acme payments", version="1.0"))
    return root / "out"


@pytest.fixture(scope="session")
def example_v2(examples_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/docs declaring version 2.0."""
    out = tmp_path_factory.mktemp("lib-example-v2") / "out"
    build(BuildOptions(docs_dir=examples_docs, out=out, description="Acme payments", version="2.0"))
    return out


@pytest.fixture(scope="session")
def acme_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small SDK in four languages whose global guides are MCP resources."""
    root = tmp_path_factory.mktemp("lib-acme")
    build(
        BuildOptions(
            docs_dir=write_docs(root / "docs", SDK_FILES), out=root / "out", description="Acme widgets"
        )
    )
    return root / "out"


@pytest.fixture(scope="module", name="hub")
def five_libraries(
    claude_index: Path, sdk_index: Path, example_v1: Path, example_v2: Path, acme_index: Path
) -> Iterator[ReadyHub]:
    """A hub of claude-docs, the SDK corpora, two versions of the example docs and acme, opened."""
    specs = [
        f"claude-docs={claude_index}",
        f"sdks={sdk_index}",
        f"example={example_v1}",  # versions declared by the indexes (build --version)
        f"example={example_v2}",
        f"acme={acme_index}",
    ]
    ready = open_hub(parse_index_specs(specs), key=CURSOR_KEY)
    yield ready
    ready.stop()


@contextmanager
def union_hub(specs: Sequence[str], mode: UnionMode, cache: Path) -> Iterator[ReadyHub]:
    """A hub of ``specs`` whose merged searches use its union as ``mode`` says (made in the cache
    ``cache``), once the union is open; stopped, and the environment restored, after."""
    patch = pytest.MonkeyPatch()
    patch.setenv(UNION_ENV, mode)
    patch.setenv(CACHE_ENV, str(cache))
    ready = open_hub(parse_index_specs(list(specs)), key=CURSOR_KEY)
    try:
        union_ready(ready.hub)
        yield ready
    finally:
        ready.stop()
        patch.undo()
