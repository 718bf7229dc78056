"""Slugs: the spec's four steps for ASCII, plus trimming, ``section`` and Unicode letters."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docs_mcp.chunk.slug import EMPTY_SLUG, slugify


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("Backoff Strategy", "backoff-strategy"),
        ("1. Choose the right model", "1-choose-the-right-model"),
        ("What's new in v2.0?", "whats-new-in-v20"),
        ("  Leading and trailing  ", "leading-and-trailing"),
        ("a -- b", "a-b"),
        ("-dashes-", "dashes"),
        ("`createLink()` method", "createlink-method"),
        ("snake_case_name", "snakecasename"),
        ("Tabs\tare\tstripped", "tabsarestripped"),
    ],
)
def test_ascii_headings_follow_the_spec_algorithm(heading: str, slug: str) -> None:
    assert slugify(heading) == slug


@pytest.mark.parametrize("heading", ["", "   ", "!!!", "---", "???", "🚀"])
def test_a_heading_with_no_letters_or_digits_becomes_section(heading: str) -> None:
    assert slugify(heading) == "section"


def test_the_preamble_id_cannot_collide_with_a_heading() -> None:
    assert slugify("_preamble") == "preamble"


def test_accents_are_removed_instead_of_dropping_the_letter() -> None:
    assert slugify("Café au lait") == "cafe-au-lait"
    assert slugify("Über Größe") == "uber-große"  # ß has no decomposition: a letter of its own, kept


def test_cjk_headings_keep_their_characters() -> None:
    assert slugify("快速开始") == "快速开始"
    assert slugify("認証 トークン") == "認証-トークン"
    assert slugify("快速开始") != slugify("安装")


def test_full_width_and_ligature_forms_fold_to_ascii() -> None:
    assert slugify("\uff21\uff30\uff29 Keys") == "api-keys"  # full-width "API"
    assert slugify("ﬁle") == "file"


def test_dotted_capital_i_lowercases_without_a_stray_mark() -> None:
    assert slugify("İstanbul") == "istanbul"


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_plain_ascii_input_gives_exactly_the_spec_result(heading: str) -> None:
    assert slugify(heading) == spec_slugify(heading)


@given(st.text())
def test_slugs_are_never_empty_and_never_start_or_end_with_a_hyphen(heading: str) -> None:
    slug = slugify(heading)
    assert slug
    assert not slug.startswith("-")
    assert not slug.endswith("-")
    assert "--" not in slug
    assert " " not in slug
    assert "/" not in slug
    assert "#" not in slug


def spec_slugify(heading: str) -> str:
    """The spec's ASCII-only algorithm, exactly (plus trimming and ``section``), to compare against."""
    kept = "".join(ch for ch in heading.lower() if ch in " -" or "a" <= ch <= "z" or "0" <= ch <= "9")
    return re.sub(r"-{2,}", "-", kept.replace(" ", "-")).strip("-") or EMPTY_SLUG
