"""``fix``: propose the manifests a docs folder lacks, or repair the drift of the ones it has.

1. read the folder (``load_corpus``) and scan every file's outline; infer the layout (SDK folders);
2. bootstrap, when no manifest exists: draft manifests (``bootstrap.py``), with a model's help if
   asked (``llm.py``);
3. repair rounds (``drift.py``), each checked by loading the folder with the proposed files over it,
   until a round changes nothing: what is proposed validates, and fix run on it proposes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from docs_mcp.corpus.loader import Corpus, load_corpus
from docs_mcp.errors import ConfigError
from docs_mcp.fix.bootstrap import draft_manifests
from docs_mcp.fix.corpus_name import corpus_name
from docs_mcp.fix.drift import repair
from docs_mcp.fix.layout import infer_layout
from docs_mcp.fix.outline import FileOutline, scan
from docs_mcp.fix.proposal import FixProposal, Mode
from docs_mcp.fix.repair_round import Round
from docs_mcp.fix.workspace import Workspace
from docs_mcp.parse.strategy import DEFAULT_MAX_CHUNK_SIZE

__all__ = ["LLM_CHOICES", "fix"]

MAX_ROUNDS = 8
LLM_CHOICES = ("none", "openai")


def fix(
    docs_dir: Path,
    *,
    llm: str = "none",
    model: str | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
    site_config: Path | None = None,
    description: str | None = None,
) -> FixProposal:
    """Propose manifests, front matter and hint comments for ``docs_dir``; writes nothing (see
    ``FixProposal.write``). ``llm="openai"`` asks a chat model (``model`` at ``base_url``, key from
    ``api_key`` or ``OPENAI_API_KEY``) to help bootstrap; a failed or invalid answer falls back to the
    heuristics with a note in the proposal.

    Docs that are the source of a site generator (``site_config``, or a config beside them) are
    someone else's pages: every proposal then goes into manifests (root or per-folder overrides),
    never into a markdown file. The drafted instructions name the docs ``description``, else the
    site's name, else the root index page's title (``corpus_name.py``).

    Raises:
        ConfigError: ``docs_dir`` is not a folder, ``llm`` is unknown, or the model has no API key.
        MissingExtra: ``llm="openai"`` without the openai extra installed.
    """
    if llm not in LLM_CHOICES:
        raise ConfigError(f"unknown --llm {llm!r}; use one of: {', '.join(LLM_CHOICES)}")
    root = Path(docs_dir)
    corpus = load_corpus(root, site_config=site_config)
    guest = corpus.site.recognised
    outlines = _outlines(corpus)
    layout = infer_layout(outlines)
    workspace = Workspace(root)
    notes: list[str] = []
    mode: Mode = "repair" if corpus.manifests else "bootstrap"
    if mode == "bootstrap":
        subject = corpus_name(root, outlines, corpus.site.name, description)
        drafts = draft_manifests(outlines, layout, DEFAULT_MAX_CHUNK_SIZE, subject)
        if llm == "openai":
            from docs_mcp.fix.llm import consult

            drafts, advice = consult(
                drafts, outlines, layout, model=model, base_url=base_url, api_key=api_key
            )
            notes.extend(advice)
        if site_config is not None and corpus.site.recognised:
            # Recorded so that validate and build find the config without the flag.
            where = Path(os.path.relpath(Path(site_config).absolute(), root.absolute())).as_posix()
            drafts[0].data["site"] = {"config": where}
            drafts[0].reasons.append(f"site.config: the {corpus.site.generator} config given, {where}")
        for draft in drafts:
            workspace.write_manifest(draft.path, draft.data, *draft.reasons)
        corpus = load_corpus(root, overlay=workspace.overlay(), site_config=site_config)
    elif llm != "none":
        notes.append(
            "manifests exist: the model helps only to bootstrap, so repairs use the heuristics alone"
        )
    for _ in range(MAX_ROUNDS):
        if not repair(Round(corpus, workspace, layout, guest=guest)):
            break
        corpus = load_corpus(root, overlay=workspace.overlay(), site_config=site_config)
    return FixProposal(
        docs_dir=root,
        mode=mode,
        changes=tuple(workspace.changes()),
        remaining=tuple(corpus.findings),
        notes=tuple(notes),
        facets={sdk.folder: sdk.language for sdk in layout.sdk_folders},
    )


def _outlines(corpus: Corpus) -> list[FileOutline]:
    outlines = []
    for file in corpus.files:
        try:
            text = (corpus.root / file.path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # load_corpus reported it
        outlines.append(scan(file.path, text))
    return outlines
