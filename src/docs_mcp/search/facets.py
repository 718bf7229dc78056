"""The spec's facet conventions in one place: which facets mean language and scope, and the
auto-include rule that joins them.

Spec §4, "The Auto-Include Rule": when ``language`` is given and ``scope`` is not, a search also
returns the language-neutral guides: ``(scope = 'sdk-specific' AND language = L) OR scope =
'global-guide'``. An explicit ``scope`` is respected exactly. The names and values are the spec's by
default (``SPEC_FACETS``); a host with another taxonomy passes its own ``FacetConventions`` in
``SearchConfig``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SPEC_FACETS", "FacetConventions"]


@dataclass(frozen=True)
class FacetConventions:
    language: str = "language"
    scope: str = "scope"
    sdk_specific: str = "sdk-specific"  # the scope value of one SDK's pages
    global_guide: str = "global-guide"  # the scope value of language-neutral guides
    auto_include: bool = True


SPEC_FACETS = FacetConventions()
