"""Fix: ``docs-mcp fix`` bootstraps docs manifests for a folder or repairs their drift.

A program of its own (an LLM client, proposals, edits); nothing but the CLI imports it. Public API:
the names in ``__all__``, loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.fix.plan_cache import plans_dir as plans_dir
    from docs_mcp.fix.proposal import FileChange as FileChange
    from docs_mcp.fix.proposal import FixProposal as FixProposal
    from docs_mcp.fix.run import fix as fix

__all__, __getattr__, __dir__ = lazy_exports(__name__)
