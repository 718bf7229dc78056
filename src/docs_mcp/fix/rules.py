"""Rules ``fix`` proposes once the repairs are done: ``kind`` rules (``kind_rules.py``) and copy rules
(``copy_proposals.py``), read off the folder as the last repair round loaded it.

They set no strategy, so no file needs chunking again to check them: the proposed manifests are
checked the way ``validate`` checks rules (the schema, kind values, rules that apply to no file),
which keeps ``fix`` as fast as before on folders of thousands of generated pages.
"""

from __future__ import annotations

from docs_mcp.corpus.copy_rules import declared_rules
from docs_mcp.corpus.docs_manifest import MANIFEST_NAME, parse_manifest
from docs_mcp.corpus.facets import check_manifest_metadata, facets_of
from docs_mcp.errors import Finding
from docs_mcp.fix.copy_proposals import propose_copy_rules
from docs_mcp.fix.kind_rules import propose_kind_rules
from docs_mcp.fix.repair_round import Round

__all__ = ["propose_rules"]


def propose_rules(round_: Round) -> list[Finding]:
    """Write the kind and copy rules the manifests lack into ``round_.workspace``; returns what
    checking the proposed manifests finds (nothing, unless a rule is wrong)."""
    before = round_.changes
    propose_kind_rules(round_)
    propose_copy_rules(round_)
    if round_.changes == before:
        return []
    manifests = dict(round_.corpus.manifests)
    findings: list[Finding] = []
    for path, data in round_.workspace.overlay().items():
        if path.rpartition("/")[2] == MANIFEST_NAME:
            manifest, problems = parse_manifest(data, path)
            manifests[manifest.folder] = manifest
            findings.extend(problems)
    facets = facets_of(manifests.values())
    for manifest in manifests.values():
        findings.extend(check_manifest_metadata(manifest, facets))
    findings.extend(declared_rules(manifests, [file.path for file in round_.corpus.files]).findings)
    return findings
