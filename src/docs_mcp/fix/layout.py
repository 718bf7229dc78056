"""Facets from the layout: see ``docs_mcp.corpus.sdk_layout``, where the inference lives (the build
infers the same facets for a folder without manifests)."""

from docs_mcp.corpus.sdk_layout import (
    API,
    GLOBAL_GUIDE,
    LANGUAGE,
    LANGUAGE_NAMES,
    SCOPE,
    SDK_PARENTS,
    SDK_SPECIFIC,
    Layout,
    SdkFolder,
    infer_layout,
    taxonomy,
)

__all__ = [
    "API",
    "GLOBAL_GUIDE",
    "LANGUAGE",
    "LANGUAGE_NAMES",
    "SCOPE",
    "SDK_PARENTS",
    "SDK_SPECIFIC",
    "Layout",
    "SdkFolder",
    "infer_layout",
    "taxonomy",
]
