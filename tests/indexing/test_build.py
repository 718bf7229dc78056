"""build(): refusal on errors, determinism, the manifest, and atomic replacement."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

import lancedb
import pytest

from docs_mcp.embedding import provider as provider_module
from docs_mcp.embedding.hash import HashProvider
from docs_mcp.embedding.provider import EmbeddingSettings, register_provider
from docs_mcp.errors import ConfigError, EmbeddingError, ValidationFailed
from docs_mcp.indexing.pipeline import BuildOptions, BuildProgress, build
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest
from docs_mcp.store.index_manifest import MANIFEST_FILE
from testkit.index_fixtures import write_docs

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def isolated_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Providers a test registers vanish after it, so other tests see the built-in list."""
    monkeypatch.setattr(provider_module, "_REGISTRY", dict(provider_module._REGISTRY))


def _rows(out: Path) -> list[dict[str, object]]:
    table = lancedb.connect(str(out / ".lancedb")).open_table("chunks")
    return sorted(table.to_arrow().to_pylist(), key=lambda row: str(row["id"]))


def test_two_builds_of_the_same_docs_give_the_same_rows_and_manifest(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    for out in ("a", "b"):
        build(
            BuildOptions(
                docs_dir=docs, out=tmp_path / out, embedding_provider="hash", cache_dir=tmp_path / "c"
            )
        )
    assert (tmp_path / "a" / MANIFEST_FILE).read_bytes() == (tmp_path / "b" / MANIFEST_FILE).read_bytes()
    assert _rows(tmp_path / "a") == _rows(tmp_path / "b")


def test_the_manifest_records_facets_counts_and_embedding(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    result = build(
        BuildOptions(docs_dir=docs, out=tmp_path / "out", description="Test docs", embedding_provider="hash")
    )
    data = json.loads((tmp_path / "out" / MANIFEST_FILE).read_text())
    assert data["description"] == "Test docs"
    assert data["facets"]["scope"] == ["global-guide", "sdk-specific"]
    assert data["embedding"] == {"provider": "hash", "model": "hash-bow-v1", "dimensions": 64}
    assert (data["file_count"], data["chunk_count"]) == (result.file_count, result.chunk_count)
    assert data["source_commit"] is None
    assert not {"built_at", "created_at", "timestamp"} & set(data)


def test_validation_errors_refuse_the_build_and_write_nothing(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs", {"a.md": "# A\n\ntext\n", ".docs-mcp.json": "{not json"})
    with pytest.raises(ValidationFailed) as raised:
        build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    assert raised.value.findings
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["docs"]


def test_a_rebuild_replaces_the_index_and_leaves_no_staging_folder(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    (docs / "guides" / "new.md").write_text("# New\n\n## Fresh page\n\nBrand new zebra content.\n")
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    hits = DocsIndex.open(tmp_path / "out").search(SearchRequest("zebra")).hits
    assert [hit.chunk_id for hit in hits] == ["guides/new.md#new/fresh-page"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs", "out"]


class _BrokenProvider(HashProvider):
    name = "broken-for-tests"

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        raise EmbeddingError("invalid API key")


def test_a_failed_build_leaves_the_previous_index_serving(tmp_path: Path, isolated_registry: None) -> None:
    register_provider("broken-for-tests", _BrokenProvider.create)
    docs = write_docs(tmp_path / "docs")
    build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    before = (tmp_path / "out" / MANIFEST_FILE).read_bytes()
    with pytest.raises(EmbeddingError):
        build(BuildOptions(docs_dir=docs, out=tmp_path / "out", embedding_provider="broken-for-tests"))
    assert (tmp_path / "out" / MANIFEST_FILE).read_bytes() == before
    assert DocsIndex.open(tmp_path / "out").search(SearchRequest("retries")).hits


def test_an_unrelated_folder_is_never_replaced(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "precious.txt").write_text("keep me")
    with pytest.raises(ConfigError, match="not a docs-mcp index"):
        build(BuildOptions(docs_dir=write_docs(tmp_path / "docs"), out=tmp_path / "out"))
    assert (tmp_path / "out" / "precious.txt").read_text() == "keep me"


def test_an_option_the_provider_does_not_take_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--embedding-base-url"):
        build(
            BuildOptions(
                docs_dir=write_docs(tmp_path / "docs"),
                out=tmp_path / "out",
                embedding_provider="hash",
                embedding=EmbeddingSettings(base_url="http://127.0.0.1:9"),
            )
        )


def test_progress_reports_files_chunks_embedding_batches_and_done(tmp_path: Path) -> None:
    events: list[BuildProgress] = []
    result = build(
        BuildOptions(
            docs_dir=write_docs(tmp_path / "docs"),
            out=tmp_path / "out",
            embedding_provider="hash",
            embedding=EmbeddingSettings(batch_size=2),
            progress=events.append,
        )
    )
    stages = [e.stage for e in events]
    assert stages[0] == "files" and stages[-1] == "done"
    batches = [e.done for e in events if e.stage == "embedding"]
    assert batches == [*range(0, result.chunk_count, 2), result.chunk_count]


def _configure_embedding(docs: Path, embedding: dict[str, object]) -> None:
    (docs / ".docs-mcp.json").write_text(json.dumps({"version": "1", "embedding": embedding}))


def test_the_root_manifest_embedding_key_chooses_the_provider_when_no_flag_does(tmp_path: Path) -> None:
    docs = write_docs(tmp_path / "docs")
    _configure_embedding(docs, {"provider": "hash", "dimensions": 16})
    result = build(BuildOptions(docs_dir=docs, out=tmp_path / "out"))
    assert result.manifest.embedding is not None
    assert (result.manifest.embedding.provider, result.manifest.embedding.dimensions) == ("hash", 16)


def test_an_embedding_flag_wins_over_the_manifest_and_drops_its_other_providers_options(
    tmp_path: Path,
) -> None:
    docs = write_docs(tmp_path / "docs")
    _configure_embedding(docs, {"provider": "hash", "dimensions": 16})
    none = build(BuildOptions(docs_dir=docs, out=tmp_path / "none", embedding_provider="none"))
    assert none.manifest.embedding is None
    wider = build(
        BuildOptions(docs_dir=docs, out=tmp_path / "wide", embedding=EmbeddingSettings(dimensions=32))
    )
    assert wider.manifest.embedding is not None and wider.manifest.embedding.dimensions == 32


class _ConcurrentHash(HashProvider):
    """A provider that runs ``concurrency`` requests of ``batch_size`` texts; records its calls."""

    calls: ClassVar[list[int]] = []

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        _ConcurrentHash.calls.append(len(texts))
        return super().embed_documents(texts)


def test_each_provider_call_gets_a_batch_for_every_concurrent_request(
    tmp_path: Path, isolated_registry: None
) -> None:
    register_provider("concurrent-hash", lambda _settings: _ConcurrentHash(batch_size=2, concurrency=3))
    _ConcurrentHash.calls = []
    result = build(
        BuildOptions(
            docs_dir=write_docs(tmp_path / "docs"),
            out=tmp_path / "out",
            embedding_provider="concurrent-hash",
            cache_dir=tmp_path / "cache",
        )
    )
    assert result.chunk_count > 6
    assert _ConcurrentHash.calls[:-1] == [6] * (len(_ConcurrentHash.calls) - 1)
    assert sum(_ConcurrentHash.calls) == result.chunk_count
