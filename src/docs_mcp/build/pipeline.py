"""``build``: validate and chunk a docs folder, embed it, and write the index atomically.

The index is written into a private temporary folder beside ``OUT`` and swapped in at the end
(an atomic exchange on Linux), so an interrupted or failed build leaves the previous index
untouched and usable, and a validation error writes nothing at all.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from docs_mcp import __version__
from docs_mcp.authoring.corpus import load_corpus
from docs_mcp.authoring.model import Chunk
from docs_mcp.build.rows import chunk_rows
from docs_mcp.build.swap import exchange_dirs, pid_alive
from docs_mcp.build.writer import write_index
from docs_mcp.embedding.cache import CachingProvider
from docs_mcp.embedding.provider import EmbeddingProvider, create_provider
from docs_mcp.errors import ConfigError, EmbeddingError, Finding, ValidationFailed
from docs_mcp.store.manifest import (
    FORMAT_VERSION,
    MANIFEST_FILE,
    EmbeddingInfo,
    IndexManifest,
    write_manifest,
)

Stage = Literal["files", "chunks", "estimate", "embedding", "writing", "done"]
CACHE_DIR_NAME = ".docs-mcp-cache"
DEFAULT_BATCH_SIZE = 64
_BUILDING = ".building-"
_UNEXPECTED = re.compile(r"unexpected keyword argument '(\w+)'")


@dataclass(frozen=True)
class BuildProgress:
    """One progress report: ``done`` of ``total`` (None when unknown) in ``stage``."""

    stage: Stage
    done: int
    total: int | None = None
    detail: str = ""


@dataclass(frozen=True)
class BuildOptions:
    docs_dir: Path
    out: Path
    description: str | None = None
    embedding_provider: str | None = None  # None: the root manifest's `embedding`, else "none"
    embedding_model: str | None = None
    embedding_dimensions: int | None = None
    embedding_batch_size: int | None = None
    embedding_concurrency: int | None = None
    embedding_base_url: str | None = None
    cache_dir: Path | None = None  # default OUT/.docs-mcp-cache, when the cache is available
    progress: Callable[[BuildProgress], None] | None = None


@dataclass(frozen=True)
class BuildResult:
    out: Path
    manifest: IndexManifest
    file_count: int
    chunk_count: int
    seconds: float
    warnings: list[Finding] = field(default_factory=list)
    embedded: int = 0
    cache_hits: int | None = None  # None: no embedding cache in use
    cache_misses: int | None = None


def build(options: BuildOptions) -> BuildResult:
    """Build the index of ``options.docs_dir`` into ``options.out``, replacing any previous index.

    Raises:
        ValidationFailed: the docs have errors (nothing is written).
        ConfigError: a bad option, or ``out`` exists and is not a docs-mcp index.
        EmbeddingError: the embedding provider failed (the previous index stays in place).
    """
    started = time.monotonic()
    report = options.progress or (lambda _: None)
    out = Path(options.out).absolute()
    _check_out(out)
    files_seen = 0

    def on_file(_path: str) -> None:
        nonlocal files_seen
        files_seen += 1
        report(BuildProgress("files", files_seen))

    corpus = load_corpus(Path(options.docs_dir), on_file=on_file)
    if corpus.errors:
        raise ValidationFailed(
            f"{len(corpus.errors)} validation error(s) in {options.docs_dir}; nothing was built. "
            "Fix them (docs-mcp validate shows them all) and build again",
            corpus.findings,
        )
    chunks = corpus.chunks
    report(BuildProgress("chunks", len(chunks), len(chunks), f"{len(corpus.files)} files"))
    name, settings = embedding_settings(options, corpus.embedding)
    provider = _provider(name, settings)
    cache_dir = options.cache_dir or out / CACHE_DIR_NAME
    vectors = None
    if provider is not None:
        _report_cost(provider, chunks, report)
        slice_size = _slice_size(provider, settings.get("batch_size"))
        provider = CachingProvider(provider, cache_dir)
        vectors = _embed(provider, chunks, slice_size, report)
    facets = _facets(chunks)
    manifest = IndexManifest(
        format_version=FORMAT_VERSION,
        docs_mcp_version=__version__,
        description=options.description,
        instructions=corpus.instructions,
        facets=facets,
        embedding=EmbeddingInfo(provider.name, provider.model, int(provider.dimensions))
        if provider
        else None,
        chunk_count=len(chunks),
        file_count=len(corpus.files),
        content_hash=corpus.content_hash,
        source_commit=_source_commit(Path(options.docs_dir)),
    )
    report(BuildProgress("writing", 0, None, str(out)))
    _clean_stale(out)
    staging = out.parent / f".{out.name}{_BUILDING}{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        write_index(staging, chunk_rows(chunks, facets, vectors), sorted(facets))
        write_manifest(staging, manifest)
        if options.cache_dir is None and cache_dir.is_dir():
            # The default cache lives inside OUT: carry it into the new index before the swap.
            shutil.move(str(cache_dir), str(staging / CACHE_DIR_NAME))
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    seconds = time.monotonic() - started
    report(BuildProgress("done", len(chunks), len(chunks), f"{seconds:.1f}s"))
    return BuildResult(
        out=out,
        manifest=manifest,
        file_count=len(corpus.files),
        chunk_count=len(chunks),
        seconds=seconds,
        warnings=corpus.warnings,
        embedded=len(chunks) if provider else 0,
        cache_hits=getattr(provider, "hits", None),
        cache_misses=getattr(provider, "misses", None),
    )


def _check_out(out: Path) -> None:
    if out.exists() and (not out.is_dir() or (any(out.iterdir()) and not (out / MANIFEST_FILE).exists())):
        entries = {p.name for p in out.iterdir()} if out.is_dir() else set()
        if entries != {CACHE_DIR_NAME}:  # a cache left by a failed first build is fine
            raise ConfigError(
                f"{out} exists and is not a docs-mcp index; refusing to replace it. "
                "Choose an empty or new --out"
            )


def _facets(chunks: Sequence[Chunk]) -> dict[str, list[str]]:
    values: dict[str, set[str]] = {}
    for chunk in chunks:
        for key, value in chunk.metadata.items():
            values.setdefault(key, set()).add(str(value))
    return {key: sorted(found) for key, found in sorted(values.items())}


def embedding_settings(
    options: BuildOptions, configured: Mapping[str, object] | None
) -> tuple[str, dict[str, Any]]:
    """The provider name and its options: flags over the root manifest's ``embedding`` key.

    The manifest's options apply only to the provider it names, so ``--embedding-provider local``
    on a docs folder configured for openai does not inherit openai's model.
    """
    configured = dict(configured or {})
    configured_name = str(configured.pop("provider", "none"))
    name = options.embedding_provider or configured_name
    base: dict[str, Any] = configured if name == configured_name else {}
    flags: dict[str, Any] = {
        "model": options.embedding_model,
        "dimensions": options.embedding_dimensions,
        "batch_size": options.embedding_batch_size,
        "concurrency": options.embedding_concurrency,
        "base_url": options.embedding_base_url,
    }
    return name, base | {key: value for key, value in flags.items() if value is not None}


def _provider(name: str, settings: Mapping[str, Any]) -> EmbeddingProvider | None:
    if name == "none":
        return None
    given = dict(settings)
    while True:
        try:
            return create_provider(name, **given)
        except TypeError as error:
            # A provider that does not take an option: batch size is ours anyway, others are errors.
            match = _UNEXPECTED.search(str(error))
            if match is None:
                raise
            if match.group(1) != "batch_size":
                flag = "--embedding-" + match.group(1).replace("_", "-")
                raise ConfigError(f"embedding provider {name!r} does not take {flag}") from error
            del given["batch_size"]


def _report_cost(
    provider: EmbeddingProvider, chunks: Sequence[Chunk], report: Callable[[BuildProgress], None]
) -> None:
    """Before a paid run, say what it may cost (an upper bound: cached chunks cost nothing)."""
    if provider.name != "openai":
        return
    from docs_mcp.embedding.openai import estimate_cost

    tokens, usd = estimate_cost([chunk.embedding_input for chunk in chunks], provider.model)
    detail = f"{provider.model}: at most ~{tokens:,} tokens, ~${usd:.2f} before cache hits"
    report(BuildProgress("estimate", len(chunks), len(chunks), detail))


def _slice_size(provider: EmbeddingProvider, batch_size: object) -> int:
    """Texts per ``embed_documents`` call: one request's batch for each request the provider runs
    at once, so a provider with ``concurrency`` N really has N requests in flight."""
    per_request = int(str(batch_size or getattr(provider, "batch_size", DEFAULT_BATCH_SIZE)))
    if per_request < 1:
        raise ConfigError(f"--embedding-batch-size must be at least 1 (got {per_request})")
    return per_request * max(1, int(getattr(provider, "concurrency", 1)))


def _embed(
    provider: CachingProvider,
    chunks: Sequence[Chunk],
    batch_size: int,
    report: Callable[[BuildProgress], None],
) -> list[list[float]]:
    vectors: list[list[float]] = []
    total = len(chunks)
    report(BuildProgress("embedding", 0, total, provider.model))
    for start in range(0, total, batch_size):
        batch_chunks = chunks[start : start + batch_size]
        batch = [chunk.embedding_input for chunk in batch_chunks]
        got = provider.embed_documents(batch, labels=[chunk.id for chunk in batch_chunks])
        if len(got) != len(batch) or any(len(v) != provider.dimensions for v in got):
            raise EmbeddingError(
                f"embedding provider {provider.name!r} returned {len(got)} vectors for {len(batch)} inputs "
                f"or vectors not of {provider.dimensions} dimensions"
            )
        vectors.extend(got)
        report(BuildProgress("embedding", len(vectors), total, provider.model))
    return vectors


def _source_commit(docs_dir: Path) -> str | None:
    """The git commit checked out in ``docs_dir``, or None when it is not in a git work tree."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run(
            ["git", "-C", str(docs_dir), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        commit = done.stdout.strip()
        if done.returncode == 0 and len(commit) in (40, 64):
            return commit
    return None


def _clean_stale(out: Path) -> None:
    """Remove staging folders of builds that died (their process is gone)."""
    prefix = f".{out.name}{_BUILDING}"
    if not out.parent.is_dir():
        return
    for entry in out.parent.iterdir():
        pid = entry.name[len(prefix) :]
        if entry.name.startswith(prefix) and pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


def _swap_in(staging: Path, out: Path) -> None:
    if out.exists():
        exchange_dirs(staging, out)  # `staging` now holds the previous index; the caller removes it
    else:
        os.replace(staging, out)
