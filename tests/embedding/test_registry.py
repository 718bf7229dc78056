"""Providers are created by name from one registry; built-ins register like any other provider."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from docs_mcp.embedding import provider as registry
from docs_mcp.embedding.hash import HashProvider
from docs_mcp.embedding.provider import (
    CostEstimate,
    EmbeddingProvider,
    EmbeddingSettings,
    create_provider,
    provider_names,
    register_provider,
)
from docs_mcp.errors import ConfigError


class ConstantProvider:
    name = "constant"
    model = "constant-v1"
    batch_size = 8
    concurrency = 1

    def __init__(self, dimensions: int = 3) -> None:
        self.dimensions = dimensions

    @classmethod
    def create(cls, settings: EmbeddingSettings) -> ConstantProvider:
        return cls(settings.dimensions or 3)

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        return [[1.0] * self.dimensions for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0] * self.dimensions

    def estimate_cost(self, texts: Sequence[str]) -> CostEstimate | None:
        return None


def test_none_means_no_provider_at_all() -> None:
    assert create_provider("none") is None


def test_every_builtin_is_selectable_by_name() -> None:
    assert {"none", "hash", "openai", "local"} <= set(provider_names())


def test_a_registered_provider_is_created_with_the_options_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_provider("constant", ConstantProvider.create, settings=["dimensions"])

    created = create_provider("constant", EmbeddingSettings(dimensions=5))

    assert isinstance(created, EmbeddingProvider)
    assert created.embed_query("q") == [1.0] * 5
    assert "constant" in provider_names()


def test_register_provider_replaces_an_earlier_registration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_provider("hash", ConstantProvider.create)

    assert isinstance(create_provider("hash"), ConstantProvider)


def test_hash_is_created_by_name_with_its_options() -> None:
    created = create_provider("hash", EmbeddingSettings(dimensions=16))

    assert isinstance(created, HashProvider) and created.dimensions == 16


def test_an_unknown_name_lists_the_choices() -> None:
    with pytest.raises(ConfigError, match="choose one of: hash, local, none, openai"):
        create_provider("cohere")


def test_a_provider_whose_extra_is_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(registry._REGISTRY, "local", raising=False)
    monkeypatch.delitem(sys.modules, "docs_mcp.embedding.local", raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if the extra were not installed

    with pytest.raises(ConfigError, match=r"pip install 'docs-mcp-index\[local\]( @ [^']+)?'"):
        create_provider("local")


def test_a_setting_the_provider_does_not_declare_is_refused_naming_its_flag() -> None:
    with pytest.raises(ConfigError, match="'hash' does not take --embedding-base-url"):
        create_provider("hash", EmbeddingSettings(base_url="http://127.0.0.1:9/v1"))


@pytest.mark.parametrize("setting", ["dimensions", "batch_size", "concurrency"])
def test_a_size_setting_below_one_is_refused_naming_its_flag(setting: str) -> None:
    flag = "--embedding-" + setting.replace("_", "-")
    with pytest.raises(ConfigError, match=flag):
        create_provider("hash", EmbeddingSettings(**{setting: 0}))  # type: ignore[arg-type]


def test_every_builtin_declares_the_whole_contract() -> None:
    for name in ("hash", "local"):
        provider = create_provider(name)
        assert isinstance(provider, EmbeddingProvider)
        assert provider.batch_size >= 1 and provider.concurrency >= 1
        assert provider.estimate_cost(["some text"]) is None
