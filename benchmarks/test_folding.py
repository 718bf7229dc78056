"""Cross-language folding on the dub + mistral corpora: does a search without ``language`` show one
section twice in its top five? (issue 15's goal: never).

Twenty developer questions that name no language (written for this measurement; the labelled SDK
set, ``tests/data/sdk_queries.jsonl``, measures the same with gold answers once it is on main), run
with folding on and off on the corpora index (full text). Two hits are "the same section" here by a
definition independent of the folding code: ``strict`` is the same file name, heading path (page
title, breadcrumb, heading) with the language's name taken out, and part, compared without case;
``loose`` only the file name and the section's own heading. Both require the other facets (``api``)
to agree. Run: ``.venv/bin/python -m pytest benchmarks/test_folding.py --benchmark-only -s``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

import pytest
from pytest_benchmark.fixture import BenchmarkFixture

from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchRequest, Section

QUESTIONS = [
    "create a short link",
    "retry configuration",
    "error handling",
    "paginate list results",
    "delete a domain",
    "track a lead conversion",
    "list links filtered by tag",
    "update a tag color",
    "link click analytics by country",
    "use a custom HTTP client",
    "override the server URL",
    "LinkSchema fields",
    "chat completion request parameters",
    "stream chat completions",
    "create embeddings for a list of texts",
    "upload a file for fine-tuning",
    "create a batch job",
    "list available models",
    "OCR a PDF document",
    "authenticate with an API key",
]
TOP = 5
_PART = re.compile(r"-part-(\d+)$")


def section_key(hit: Section, *, strict: bool) -> tuple[object, ...]:
    language = hit.facets.get("language", "")
    word = re.compile(rf"\b{re.escape(language)}\b", re.IGNORECASE) if language else None

    def plain(heading: str) -> str:
        return " ".join((word.sub(" ", heading) if word else heading).lower().split())

    others = tuple(sorted((k, v) for k, v in hit.facets.items() if k != "language"))
    headings = (*hit.breadcrumb, hit.heading) if strict else (hit.heading,)
    part = _PART.search(hit.chunk_id)
    name = PurePosixPath(hit.file_path).name.lower()
    return (others, name, tuple(plain(h) for h in headings), part[1] if part else "1")


def repeats(hits: Sequence[Section], *, strict: bool) -> bool:
    """True when two of ``hits`` are the same section in different languages."""
    seen: dict[tuple[object, ...], set[str]] = defaultdict(set)
    for hit in hits:
        seen[section_key(hit, strict=strict)].add(hit.facets.get("language", ""))
    return any(len(languages) > 1 for languages in seen.values())


@pytest.mark.timeout(900)
@pytest.mark.parametrize("folding", ["on", "off"])
def test_repeated_sections_in_the_top_five(
    benchmark: BenchmarkFixture, corpora_index: Path, folding: str
) -> None:
    index = DocsIndex.open(corpora_index, config=SearchConfig(fold=folding == "on"))
    pages: list[list[Section]] = []

    def run() -> None:
        pages[:] = [index.search(SearchRequest(q, limit=TOP)).hits for q in QUESTIONS]

    benchmark.pedantic(run, rounds=1, iterations=1)
    strict = sum(repeats(hits, strict=True) for hits in pages)
    loose = sum(repeats(hits, strict=False) for hits in pages)
    folded = sum(len(hit.also_in) for hits in pages for hit in hits)
    benchmark.extra_info.update(repeated_strict=strict, repeated_loose=loose, variants_listed=folded)
    print(
        f" folding {folding}: {strict}/{loose} of {len(QUESTIONS)} repeat (strict/loose), {folded} variants"
    )
