"""``docs-mcp fix``: bootstrap manifests for a docs folder, or repair their drift (``run.py``)."""

from docs_mcp.authoring.fix.proposal import FileChange, FixProposal
from docs_mcp.authoring.fix.run import fix

__all__ = ["FileChange", "FixProposal", "fix"]
