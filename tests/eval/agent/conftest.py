"""Fixtures of the agent-eval tests: the example docs built into a real index, and a model wire
server on 127.0.0.1 playing scripted turns."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_support import SCRIPTS

from docs_mcp.indexing.pipeline import BuildOptions, build
from testkit.model_players import Scripted
from testkit.model_wire import WireServer, model_wire


@pytest.fixture(scope="session")
def acme_index(examples_docs: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("acme-index") / "out"
    build(BuildOptions(docs_dir=examples_docs, out=out))
    return out


@pytest.fixture
def scripted_wire() -> Iterator[WireServer]:
    with model_wire(Scripted(SCRIPTS), key="test-key") as server:
        yield server


@pytest.fixture
def model_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both providers' keys set to what the wire server expects."""
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
