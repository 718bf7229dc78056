"""Retrieval figures on the SDK query set (``tests/data/sdk_queries.jsonl``, dub + mistral corpora).

    python -m benchmarks.sdk_set --index OUT [--k 5] [--mode hybrid|fulltext|vector] [--details]

``OUT`` is an index built from the corpora as ``testkit/evaldata_sets.materialize_sdk_corpora`` stages
them (facets ``api``, ``language``, ``scope``). Per category and overall it prints:

- recall@k over *answers*: the highest-graded relevant entries, where copies of one answer (the same
  API and last heading-path element, e.g. a section in ``README.md`` and ``README-PYPI.md``, or one
  operation in each language for a question that names none) count as one answer found when any copy
  is in the top k. A relevant entry without ``#`` is a file: any of its chunks matches.
- MRR@k: the reciprocal rank of the first hit that is relevant at any grade.
- repeated sections: for questions sent without a ``language`` filter, how many show the same
  section in two languages' files in their top k (issue 15's cross-language folding drives this to
  zero). ``strict`` follows the issue's wording: the same file name and heading path, compared without
  case and with the language's name taken out, and the same part; ``loose`` compares only the file
  name and the section's own heading (it also catches a README whose sections sit under an extra
  ``# github.com/...`` title in one language). Both also require the other facets (``api``) to agree.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from docs_mcp.eval.queries import LabelledQuery, load_queries
from docs_mcp.search.config import SearchConfig
from docs_mcp.search.index import DocsIndex
from docs_mcp.search.types import SearchMode, SearchRequest, Section
from testkit.evaldata_sets import SDK_QUERIES

LANGUAGE = "language"
_PART = re.compile(r"-part-(\d+)$")


def answers(query: LabelledQuery) -> list[list[str]]:
    """The top-graded relevant entries of ``query`` grouped into answers (copies of one answer together)."""
    top = max(query.grade(r) for r in query.relevant)
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for entry in query.relevant:
        if query.grade(entry) == top:
            groups[_answer_key(entry)].append(entry)
    return list(groups.values())


@dataclass
class Figures:
    queries: int = 0
    recall: float = 0.0
    reciprocal_rank: float = 0.0
    unfiltered: int = 0  # queries sent without a language filter
    repeated_strict: int = 0
    repeated_loose: int = 0
    hit1: int = 0  # questions whose first hit is relevant
    hit3: int = 0  # questions with a relevant hit in the top 3
    slots: int = 0  # top-k slots shown
    type_slots: int = 0  # of those, type/model pages (``is_type_page``)
    duplicate_slots: int = 0  # of those, copies of a hit above them (``copy_key``)
    details: list[dict[str, object]] = field(default_factory=list)

    def line(self, name: str, k: int) -> str:
        n = self.queries or 1
        return (
            f"{name:18s} {self.queries:3d} queries  hit@1 {self.hit1 / n:.3f}  hit@3 {self.hit3 / n:.3f}  "
            f"recall@{k} {self.recall / n:.3f}  MRR@{k} {self.reciprocal_rank / n:.3f}  "
            f"type pages {self.type_slots / (self.slots or 1):.0%}  "
            f"duplicates {self.duplicate_slots / (self.slots or 1):.0%}  repeated sections (strict/loose) "
            f"{self.repeated_strict}/{self.repeated_loose} of {self.unfiltered} without a language filter"
        )


def load_set(path: Path = SDK_QUERIES) -> list[LabelledQuery]:
    """The labelled SDK questions (``docs_mcp.eval``'s query format). Raises ``ConfigError``."""
    return load_queries(path)


def _answer_key(entry: str) -> tuple[str, str]:
    path, _, slug = entry.partition("#")
    api = path.split("/", 1)[0]
    return api, (slug.rsplit("/", 1)[-1] if slug else PurePosixPath(path).name).lower()


def _matches(entry: str, hit: Section) -> bool:
    """Whether ``hit`` (or a copy folded into it, ``also_in``) is ``entry``."""
    ids = [hit.chunk_id, *(variant.chunk_id for variant in hit.also_in)]
    if "#" in entry:  # the section, a part of it (``-part-N``) or one of its subsections
        return any(cid == entry or cid.startswith((entry + "/", entry + "-part-")) for cid in ids)
    return any(cid.partition("#")[0] == entry for cid in ids)


_TYPE_FOLDERS = re.compile(r"(^|/)docs/(models|lib/utils)/")
_COPY_PARTS = re.compile(r"(^|/)packages/[^/]+/|-pypi(?=\.md$)")


def is_type_page(hit: Section) -> bool:
    """A generated type/model page (Speakeasy's ``docs/models/**``, ``docs/lib/utils/**``)."""
    return bool(_TYPE_FOLDERS.search(hit.file_path))


def copy_key(hit: Section) -> tuple[str, ...]:
    """Hits with one key are copies of one page section in one SDK: the same file once a
    ``packages/<name>/`` folder is taken out of its path (per-package copies) and a ``-PYPI`` twin
    is read as its original, and the same headings below the page title (a package's README has a
    title of its own). Two resources' pages of one name (``docs/sdks/files/README.md`` and
    ``docs/sdks/models/README.md``) are different pages, not copies."""
    path = _COPY_PARTS.sub(lambda found: found[1] or "", hit.file_path.lower())
    return (path, *(h.lower() for h in hit.breadcrumb[1:]), hit.heading.lower())


def _part(hit: Section) -> int:
    found = _PART.search(hit.chunk_id)
    return int(found[1]) if found else 1


def section_key(hit: Section, *, strict: bool) -> tuple[object, ...]:
    """What makes two hits "the same section" in different languages (see the module docstring)."""
    language = hit.facets.get(LANGUAGE, "").lower()
    others = tuple(sorted((k, v) for k, v in hit.facets.items() if k != LANGUAGE))
    name = PurePosixPath(hit.file_path).name.lower()
    word = re.compile(rf"\b{re.escape(language)}\b") if language else None

    def plain(heading: str) -> str:  # without case and without the language's name
        return " ".join((word.sub(" ", heading.lower()) if word else heading.lower()).split())

    headings = tuple(plain(h) for h in (*hit.breadcrumb, hit.heading)) if strict else (plain(hit.heading),)
    return (others, name, headings, _part(hit))


def repeated(hits: Sequence[Section], *, strict: bool) -> bool:
    """True when two of ``hits`` are the same section in different languages."""
    seen: dict[tuple[object, ...], set[str]] = defaultdict(set)
    for hit in hits:
        seen[section_key(hit, strict=strict)].add(hit.facets.get(LANGUAGE, ""))
    return any(len(languages) > 1 for languages in seen.values())


def score(query: LabelledQuery, hits: Sequence[Section]) -> tuple[float, float]:
    """(recall over answers, reciprocal rank of the first relevant hit) of one query's top hits."""
    grouped = answers(query)
    found = sum(any(_matches(e, h) for e in answer for h in hits) for answer in grouped)
    rank = next((i for i, h in enumerate(hits, 1) if any(_matches(e, h) for e in query.relevant)), None)
    return (found / len(grouped) if grouped else 0.0), (1.0 / rank if rank else 0.0)


def evaluate(
    index: DocsIndex, queries: Sequence[LabelledQuery], k: int, mode: SearchMode | None
) -> dict[str, Figures]:
    """Figures per category and ``all``."""
    figures: dict[str, Figures] = defaultdict(Figures)
    for query in queries:
        # A raw folder's index may lack a facet the question filters on: sent without that filter.
        filters = {name: value for name, value in query.filters.items() if name in index.facets}
        page = index.search(SearchRequest(query.query, filters=filters, limit=k, mode=mode))
        recall, rr = score(query, page.hits)
        keys = [copy_key(hit) for hit in page.hits]
        copies = sum(key in keys[:i] for i, key in enumerate(keys))
        strict = repeated(page.hits, strict=True)
        loose = repeated(page.hits, strict=False)
        for name in (query.category, "all"):
            f = figures[name]
            f.queries += 1
            f.recall += recall
            f.reciprocal_rank += rr
            f.hit1 += rr == 1.0
            f.hit3 += rr >= 1 / 3
            f.slots += len(page.hits)
            f.type_slots += sum(map(is_type_page, page.hits))
            f.duplicate_slots += copies
            if LANGUAGE not in filters:
                f.unfiltered += 1
                f.repeated_strict += strict
                f.repeated_loose += loose
        figures["all"].details.append(
            {
                "id": query.id,
                "recall": round(recall, 3),
                "rr": round(rr, 3),
                "repeated": [strict, loose],
                "hits": [hit.chunk_id for hit in page.hits],
            }
        )
    return dict(figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--queries", type=Path, default=SDK_QUERIES)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--mode", choices=["hybrid", "fulltext", "vector"])
    parser.add_argument("--details", action="store_true", help="one JSON line per query after the table")
    parser.add_argument(
        "--unfolded", action="store_true", help="without folding and query-named values (the before)"
    )
    args = parser.parse_args(argv)
    config = SearchConfig(fold=False, infer_filters=False) if args.unfolded else None
    index = DocsIndex.open(args.index, config=config)
    figures = evaluate(index, load_set(args.queries), args.k, args.mode)
    for name in sorted(figures, key=lambda n: (n == "all", n)):
        print(figures[name].line(name, args.k))
    if args.details:
        for row in figures["all"].details:
            print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
