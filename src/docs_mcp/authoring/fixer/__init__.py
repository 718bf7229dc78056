"""The fixer behind ``docs-mcp fix``: bootstrap manifests for a docs folder, or repair their drift
(``run.py``). Public: ``docs_mcp.authoring.fix``, ``FixProposal``, ``FileChange``."""

from docs_mcp.authoring.fixer.proposal import FileChange, FixProposal
from docs_mcp.authoring.fixer.run import fix

__all__ = ["FileChange", "FixProposal", "fix"]
