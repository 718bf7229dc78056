"""The openai provider against a real HTTP server on 127.0.0.1 speaking the /v1/embeddings format."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fake_openai import VALID_KEY, FakeOpenAIServer, fake_vector

from docs_mcp.embedding.openai import (
    OpenAIProvider,
    estimate_cost,
    estimate_tokens,
    truncate_to_tokens,
)
from docs_mcp.embedding.provider import EmbeddingSettings, create_provider
from docs_mcp.errors import ConfigError, EmbeddingError

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer().serve() as running:
        yield running


def close(actual: object, expected: object) -> bool:
    return bool(np.allclose(np.asarray(actual), np.asarray(expected), atol=1e-6))


def make(server: FakeOpenAIServer, **options: object) -> OpenAIProvider:
    settings: dict[str, object] = {
        "base_url": server.base_url,
        "api_key": VALID_KEY,
        "dimensions": 8,
        "backoff_base": 0.01,
        "timeout": 2.0,
    }
    settings.update(options)
    return OpenAIProvider(**settings)  # type: ignore[arg-type]


def test_vectors_come_back_in_input_order_across_concurrent_batches(server: FakeOpenAIServer) -> None:
    texts = [f"chunk number {i}" for i in range(23)]
    provider = make(server, batch_size=5, concurrency=3)

    vectors = provider.embed_documents(texts)

    assert close(vectors, [fake_vector(text, 8) for text in texts])
    assert sorted(len(r.inputs) for r in server.requests) == [3, 5, 5, 5, 5]
    assert all(
        r.body["dimensions"] == 8 and r.body["model"] == "text-embedding-3-large" for r in server.requests
    )


def test_default_model_is_text_embedding_3_large_with_3072_dimensions(server: FakeOpenAIServer) -> None:
    provider = OpenAIProvider(base_url=server.base_url, api_key=VALID_KEY)

    vector = provider.embed_query("how do retries work")

    assert (provider.model, provider.dimensions, len(vector)) == ("text-embedding-3-large", 3072, 3072)
    assert "dimensions" not in server.requests[0].body  # the native size needs no dimensions parameter


def test_rate_limit_is_retried_after_the_time_retry_after_asks(server: FakeOpenAIServer) -> None:
    server.fail_next(429, count=2, headers={"retry-after": "0.05"})
    provider = make(server)

    vectors = provider.embed_documents(["a", "b"])

    assert close(vectors, [fake_vector("a", 8), fake_vector("b", 8)])
    assert [r.status for r in server.requests] == [429, 429, 200]


def test_a_huge_retry_after_is_capped(server: FakeOpenAIServer) -> None:
    server.fail_next(429, headers={"retry-after": "3600"})
    provider = make(server, max_retry_wait=0.05)

    assert close(provider.embed_documents(["a"]), [fake_vector("a", 8)])


def test_server_errors_are_retried_until_attempts_run_out(server: FakeOpenAIServer) -> None:
    server.fail_next(500, count=10)
    provider = make(server, max_attempts=3)

    with pytest.raises(EmbeddingError, match=r"after 3 attempts: HTTP 500"):
        provider.embed_documents(["a"])
    assert len(server.requests) == 3


def test_a_transient_server_error_is_invisible_to_the_caller(server: FakeOpenAIServer) -> None:
    server.fail_next(503)

    assert close(make(server).embed_documents(["x"]), [fake_vector("x", 8)])


def test_a_hung_request_times_out_and_is_retried(server: FakeOpenAIServer) -> None:
    server.hang_next()
    provider = make(server, timeout=0.3)

    vectors = provider.embed_documents(["slow"])

    assert close(vectors, [fake_vector("slow", 8)])
    assert len(server.requests) == 2


def test_query_embedding_fails_fast_when_the_server_hangs(server: FakeOpenAIServer) -> None:
    server.hang_next()
    provider = make(server, query_timeout=0.2)

    with pytest.raises(EmbeddingError, match="timed out"):
        provider.embed_query("anything")
    assert len(server.requests) == 1  # no retry at query time: search falls back to full text


def test_an_invalid_key_says_the_key_was_rejected_and_is_not_retried(server: FakeOpenAIServer) -> None:
    provider = make(server, api_key="sk-wrong-key")

    with pytest.raises(EmbeddingError, match="rejected the API key") as raised:
        provider.embed_documents(["a"])
    assert "sk-wrong-key" not in str(raised.value)
    assert len(server.requests) == 1


def test_the_key_comes_from_the_environment(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", VALID_KEY)
    provider = OpenAIProvider(base_url=server.base_url, dimensions=8)

    assert close(provider.embed_query("q"), fake_vector("q", 8))
    assert VALID_KEY not in repr(provider)


def test_a_missing_key_is_a_config_error_for_a_remote_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIProvider()
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAIProvider(base_url="https://gateway.example.com/v1")


def test_a_local_server_needs_no_key(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = OpenAIProvider(base_url=server.base_url, dimensions=8)

    # The fake server insists on its key, so the placeholder is refused: but it was sent, not a ConfigError.
    with pytest.raises(EmbeddingError, match="rejected the API key"):
        provider.embed_query("q")
    assert server.requests[0].authorization is not None


def test_inputs_over_the_token_limit_are_truncated_with_a_warning_naming_the_chunk(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    huge = "word " * 20_000  # ~25k tokens by the server's count: it would refuse it whole
    provider = make(server)

    with caplog.at_level(logging.WARNING, logger="docs_mcp.embedding.openai"):
        vectors = provider.embed_documents(["short", huge], labels=["a.md#intro", "b.md#reference"])

    assert len(vectors) == 2
    sent = server.requests[0].inputs[1]
    assert len(sent) < len(huge) and huge.startswith(sent)
    assert [r.status for r in server.requests] == [200]
    assert "b.md#reference" in caplog.text and "a.md#intro" not in caplog.text


def test_truncation_without_labels_names_the_input_position(
    server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="docs_mcp.embedding.openai"):
        make(server).embed_documents(["ok", "x" * 100_000])

    assert "input #1" in caplog.text


def test_a_refused_request_is_reported_with_the_server_message(server: FakeOpenAIServer) -> None:
    provider = make(server, max_input_tokens=10**9)  # let an oversized input through to the server

    with pytest.raises(EmbeddingError, match="maximum context length"):
        provider.embed_documents(["y" * 100_000])
    assert len(server.requests) == 1


def test_empty_inputs_are_sent_as_a_blank(server: FakeOpenAIServer) -> None:
    assert len(make(server).embed_documents(["", "a"])) == 2


def test_a_model_returning_other_dimensions_is_an_error(server: FakeOpenAIServer) -> None:
    provider = make(server, model="nomic-embed-text", dimensions=16)  # server answers 3072 by default

    with pytest.raises(EmbeddingError, match="--embedding-dimensions 3072"):
        provider.embed_query("q")


def test_an_unknown_model_needs_its_dimensions() -> None:
    with pytest.raises(ConfigError, match="--embedding-dimensions"):
        OpenAIProvider(model="nomic-embed-text", api_key="k")


def test_the_provider_is_created_by_name(server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", VALID_KEY)
    provider = create_provider(
        "openai", EmbeddingSettings(base_url=server.base_url, dimensions=8, batch_size=2)
    )

    assert isinstance(provider, OpenAIProvider)
    assert close(provider.embed_documents(["p", "q", "r"]), [fake_vector(t, 8) for t in "pqr"])


def test_token_estimate_is_conservative_and_truncation_respects_it() -> None:
    text = "def f(x):\n    return x * 2\n" * 1000 + "é" * 50

    assert estimate_tokens(text) >= len(text) / 4
    assert estimate_tokens(truncate_to_tokens(text, 100)) <= 100
    assert truncate_to_tokens("short", 100) == "short"


def test_cost_estimate_uses_the_model_list_price() -> None:
    tokens, usd = estimate_cost(["abcd" * 250_000], "text-embedding-3-large")

    assert tokens == 250_000
    assert usd == pytest.approx(0.0325)
    assert estimate_cost(["abcd"], "some-local-model") == (1, 0.0)


def test_a_build_with_a_rejected_key_fails_and_leaves_the_previous_index_untouched(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from docs_mcp.indexing.pipeline import BuildOptions, build  # the real build, against the fake server

    docs, out = tmp_path / "docs", tmp_path / "index"
    docs.mkdir()
    (docs / ".docs-mcp.json").write_text('{"version": "1", "strategy": {"chunk_by": "h2"}}')
    (docs / "guide.md").write_text(
        "# Guide\n\n## Retries\n\nBack off and retry.\n\n## Limits\n\nFive a second.\n"
    )
    options = BuildOptions(
        docs_dir=docs,
        out=out,
        embedding_provider="openai",
        embedding=EmbeddingSettings(base_url=server.base_url, dimensions=8),
        cache_dir=tmp_path / "cache",
    )
    monkeypatch.setenv("OPENAI_API_KEY", VALID_KEY)
    build(options)
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    (docs / "guide.md").write_text("# Guide\n\n## Retries\n\nChanged text, so it must be embedded.\n")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-revoked")

    with pytest.raises(EmbeddingError, match="rejected the API key"):
        build(options)

    assert {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == before


def test_credentials_in_the_base_url_never_reach_a_message_or_repr(server: FakeOpenAIServer) -> None:
    with_userinfo = server.base_url.replace("http://", "http://user:SECRETKEY@")
    provider = make(server, base_url=with_userinfo, api_key="sk-wrong-key")

    with pytest.raises(EmbeddingError, match="rejected the API key") as raised:
        provider.embed_documents(["a"])
    assert "SECRETKEY" not in str(raised.value) and "http://***@127.0.0.1" in str(raised.value)
    assert "SECRETKEY" not in repr(provider)


def test_a_connection_failure_names_the_server_without_its_credentials() -> None:
    url = "http://user:SECRETKEY@127.0.0.1:9/v1"  # port 9 (discard): nothing listens
    provider = OpenAIProvider(base_url=url, api_key="k", dimensions=8, backoff_base=0.01, max_attempts=2)

    with pytest.raises(EmbeddingError, match="connection failed") as raised:
        provider.embed_query("q")
    assert "SECRETKEY" not in str(raised.value) and "http://***@127.0.0.1:9/v1" in str(raised.value)


@pytest.mark.parametrize(
    "headers",
    [{"retry-after": "nan"}, {"retry-after-ms": "NaN"}, {"retry-after": "inf"}, {"retry-after": "1e999"}],
)
def test_a_retry_after_that_is_no_finite_number_falls_back_to_the_backoff(
    server: FakeOpenAIServer, headers: dict[str, str]
) -> None:
    """float() takes "nan": a nan wait passed the cap (min and max keep it) and time.sleep(nan) raised
    ValueError out of the build. A wait that is not a finite number is no wait the server asked for."""
    server.fail_next(429, headers=headers)
    provider = make(server, backoff_base=0.01)
    assert close(provider.embed_documents(["a"]), [fake_vector("a", 8)])
    assert [r.status for r in server.requests] == [429, 200]
