"""Which hits answer a query: sections with their parts and ancestor paths, or unique pages."""

from __future__ import annotations

import pytest

from docs_mcp.eval.matching import Hit, judge, section_matches
from docs_mcp.eval.queries import LabelledQuery

pytestmark = pytest.mark.timeout(30)


def _hits(*chunk_ids: str) -> list[Hit]:
    return [Hit(chunk_id, chunk_id.partition("#")[0]) for chunk_id in chunk_ids]


@pytest.mark.parametrize(
    ("relevant", "chunk_id", "matches"),
    [
        ("a.md#setup", "a.md#setup", True),
        ("a.md#setup", "a.md#setup-part-2", True),
        ("a.md#setup", "a.md#setup-part-12", True),
        ("a.md#setup", "a.md#guide/setup", True),  # the same section under the page's title
        ("a.md#setup", "a.md#guide/setup-part-3", True),
        ("a.md#install/setup", "a.md#guide/install/setup", True),
        ("a.md#setup", "a.md#setup-2", False),  # a second heading of that name is another section
        ("a.md#setup", "a.md#setup/linux", False),  # a subsection is not the section
        ("a.md#setup", "a.md#quick-setup", False),  # a suffix of the slug, not of the path
        ("a.md#setup", "b.md#setup", False),
        ("a.md#setup", "a.md", False),
        ("a.md#setup-part-2", "a.md#setup-part-2", True),
        ("a.md#setup-part-2", "a.md#setup", False),
    ],
)
def test_a_section_matches_itself_its_parts_and_its_ancestor_paths(
    relevant: str, chunk_id: str, matches: bool
) -> None:
    assert section_matches(relevant, chunk_id) is matches


def test_a_section_is_credited_once_at_its_best_rank() -> None:
    query = LabelledQuery("q", "q", ("a.md#setup", "b.md#run"))
    judged = judge(query, _hits("a.md#setup-part-2", "a.md#setup", "c.md#x", "b.md#doc/run"))
    assert judged.credited == ("a.md#setup", None, None, "b.md#run")
    assert judged.gains == (1.0, 0.0, 0.0, 1.0)


def test_exact_matching_credits_only_the_ids_themselves() -> None:
    query = LabelledQuery("q", "q", ("a.md#setup",))
    assert judge(query, _hits("a.md#setup-part-2", "a.md#setup"), "exact").credited == (None, "a.md#setup")


def test_pages_count_once_at_their_best_hit_and_ranks_count_unique_pages() -> None:
    query = LabelledQuery("q", "q", ("b.md", "c.md"), grades={"c.md": 2})
    judged = judge(query, _hits("a.md#x", "a.md#y", "b.md#z", "a.md#w", "b.md#v", "c.md"))
    assert judged.units == ("a.md", "b.md", "c.md")
    assert judged.credited == (None, "b.md", "c.md")
    assert judged.gains == (0.0, 1.0, 2.0)
    assert judged.grades == (1.0, 2.0)
