"""An index manifest (``docs-mcp-index.json``) edited into wrong shapes or cut at any byte: reading it
is a one-line ``IndexUnavailable`` (or ``IndexCompatibilityError``) naming the file and the field, never
a traceback, never a long dump of the bad value, and never a wrong-typed value served as text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile_strategies import WRONG_SCALAR, examples, torn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from docs_mcp.errors import IndexCompatibilityError, IndexUnavailable
from docs_mcp.store.index_manifest import FORMAT_VERSION, MANIFEST_FILE, IndexManifest, read_manifest

pytestmark = pytest.mark.timeout(120)
FUZZ = settings(max_examples=examples(200), suppress_health_check=[HealthCheck.too_slow])
MAX_LINE = 1_000

GOOD: dict[str, object] = {
    "format_version": FORMAT_VERSION,
    "docs_mcp_version": "0.1.0",
    "description": "Example docs",
    "instructions": "Search first.",
    "facets": {"language": ["go", "python"]},
    "embedding": {"provider": "hash", "model": "hash-v1", "dimensions": 64},
    "chunk_count": 2,
    "file_count": 2,
    "content_hash": "abc",
    "source_commit": "0" * 40,
    "version": "1.2",
    "taxonomy": {"language": {"vector_collapse": True, "aliases": {"go": ["golang"]}, "resources": []}},
    "site": {"generator": "mkdocs", "url": "https://docs.example.com/"},
    "prompts": [{"name": "ask", "description": "d", "body": "{{q}}", "file": "ask.template.md"}],
    "examples": {"query": "Install it", "chunk_id": "a.md#install"},
}
GOOD_TEXT = json.dumps(GOOD, ensure_ascii=False, indent=2) + "\n"
FIELDS = sorted(GOOD)
NESTED = ["embedding.provider", "embedding.model", "embedding.dimensions", "site.url", "examples.query"]


def _read(folder: Path, data: bytes) -> IndexManifest | None:
    """The manifest read from ``data``, or None when refused with a short one-line error."""
    (folder / MANIFEST_FILE).write_bytes(data)
    try:
        return read_manifest(folder)
    except (IndexUnavailable, IndexCompatibilityError) as refused:
        message = str(refused)
        assert "\n" not in message and len(message) < MAX_LINE, message[:300]
        assert MANIFEST_FILE in message
        return None


def test_the_good_manifest_reads() -> None:
    assert IndexManifest.from_json(GOOD_TEXT).chunk_count == 2


@FUZZ
@given(field=st.sampled_from(FIELDS + NESTED), value=WRONG_SCALAR)
def test_a_wrong_shaped_field_is_refused_in_one_line_or_read_with_its_type(
    tmp_path_factory: pytest.TempPathFactory, field: str, value: object
) -> None:
    data = json.loads(GOOD_TEXT)
    *parents, key = field.split(".")
    target = data
    for parent in parents:
        target = target[parent]
    target[key] = value
    manifest = _read(tmp_path_factory.mktemp("m"), json.dumps(data).encode())
    if manifest is None:
        return
    for text in (manifest.docs_mcp_version, manifest.content_hash):
        assert isinstance(text, str)
    for optional in (manifest.description, manifest.instructions, manifest.version, manifest.source_commit):
        assert optional is None or isinstance(optional, str)
    if manifest.embedding is not None:
        assert isinstance(manifest.embedding.provider, str) and isinstance(manifest.embedding.model, str)


@FUZZ
@given(data=torn(st.just(GOOD_TEXT.encode())))
def test_a_manifest_cut_at_any_byte_is_refused_in_one_line(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    manifest = _read(tmp_path_factory.mktemp("m"), data)
    assert manifest is None or data.rstrip() == GOOD_TEXT.encode().rstrip()


@pytest.mark.parametrize("data", [b"\xff\xfe{", GOOD_TEXT.encode().replace(b"Example", b"Exa\xc3mple")])
def test_a_manifest_that_is_not_utf8_is_refused_naming_the_file(tmp_path: Path, data: bytes) -> None:
    assert _read(tmp_path, data) is None
