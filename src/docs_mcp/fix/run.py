"""``fix``: propose the manifests a docs folder lacks, or repair the drift of the ones it has.

1. a fresh plan of the same folder and settings (a dry run's, ``plan_cache.py``) is the answer;
2. scan every page's outline (a folder without manifests is not chunked yet: the drafts change every
   file's settings); infer the layout (SDK folders) and whether a site generator owns the pages;
3. bootstrap, when no manifest exists: draft manifests (``bootstrap.py``), with a model's help if
   asked (``llm.py``);
4. repair rounds (``drift.py``), each checked by loading the folder with the proposed files over it,
   until a round changes nothing: what is proposed validates, and fix run on it proposes nothing.
   Files whose text and settings a round did not change are not chunked again (``RoundChunks``);
5. ``kind`` and copy rules (``rules.py``), read off the last round's folder and checked without
   chunking it again.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from docs_mcp.chunk.chunking import ChunkedFile
from docs_mcp.corpus.chunk_cache import ChunkCache
from docs_mcp.corpus.loader import Corpus, load_corpus
from docs_mcp.corpus.site import Site, detect_site
from docs_mcp.corpus.walk import walk_docs
from docs_mcp.errors import ConfigError
from docs_mcp.fix.bootstrap import draft_manifests
from docs_mcp.fix.corpus_name import corpus_name, folder_name
from docs_mcp.fix.drift import repair
from docs_mcp.fix.generator_signs import generator_sign
from docs_mcp.fix.layout import infer_layout
from docs_mcp.fix.outline import FileOutline, scan
from docs_mcp.fix.plan_cache import plan_digest, recall, remember
from docs_mcp.fix.proposal import FixProposal, Mode
from docs_mcp.fix.repair_round import Round
from docs_mcp.fix.rules import propose_rules
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
    inline: bool = False,
    plans: Path | None = None,
) -> FixProposal:
    """Propose manifests for ``docs_dir``; writes nothing (see ``FixProposal.write``).
    ``llm="openai"`` asks a chat model (``model`` at ``base_url``, key from ``api_key`` or
    ``OPENAI_API_KEY``) to help bootstrap; a failed or invalid answer falls back to the heuristics
    with a note in the proposal.

    Only manifests change unless ``inline``: then section hints, front matter values and dangling
    hints are fixed in the pages themselves. Never in the source of a site generator (a config in or
    near the folder, generator syntax or pages: ``generator_signs.py``), someone else's pages:
    there every proposal goes into manifests (root or per-folder overrides) and a note says why.
    The drafted instructions name the docs ``description``, else the site's or the packages' name
    (``corpus_name.py``).

    With ``plans`` (a folder), a plan made for the same folder and settings is reused while the
    folder is unchanged, and a new one is kept there (``plan_cache.py``): a dry run then ``--write``
    analyse once.

    Raises:
        ConfigError: ``docs_dir`` is not a folder, ``llm`` is unknown, or the model has no API key.
        MissingExtra: ``llm="openai"`` without the openai extra installed.
    """
    if llm not in LLM_CHOICES:
        raise ConfigError(f"unknown --llm {llm!r}; use one of: {', '.join(LLM_CHOICES)}")
    root = Path(docs_dir)
    key = None
    if plans is not None and root.is_dir():
        key = plan_digest(root, _settings(llm, model, base_url, site_config, description, inline))
        planned = recall(root, key, plans)
        if planned is not None:
            return planned
    proposal = _analyse(root, llm, model, base_url, api_key, site_config, description, inline)
    if plans is not None and key is not None:
        stored = remember(proposal, key, plans)
        if stored is not None:
            proposal = dataclasses.replace(proposal, plan=stored)
    return proposal


def _settings(
    llm: str,
    model: str | None,
    base_url: str | None,
    site_config: Path | None,
    description: str | None,
    inline: bool,
) -> dict[str, object]:
    config: object = None
    if site_config is not None:
        try:
            info = Path(site_config).stat()
            config = [str(Path(site_config).absolute()), info.st_size, info.st_mtime_ns]
        except OSError:
            config = str(site_config)
    return {
        "llm": llm,
        "model": model,
        "base_url": base_url,
        "site_config": config,
        "description": description,
        "inline": inline,
    }


def _analyse(
    root: Path,
    llm: str,
    model: str | None,
    base_url: str | None,
    api_key: str | None,
    site_config: Path | None,
    description: str | None,
    inline: bool,
) -> FixProposal:
    chunks = RoundChunks()

    def load(overlay: dict[str, bytes] | None = None) -> Corpus:
        return load_corpus(root, overlay=overlay, site_config=site_config, chunk_cache=chunks)

    first = _first_look(root, site_config)
    if first is None:  # manifests exist: repairs start from the folder as it is
        corpus = load()
        site, outlines = corpus.site, _outlines(corpus.root, [file.path for file in corpus.files])
    else:
        site, outlines = first
    layout = infer_layout(outlines)
    sign = generator_sign(root, outlines, site.generator if site.recognised else None)
    workspace = Workspace(root)
    notes: list[str] = []
    if inline and sign is not None:
        notes.append(
            f"--inline: no page is edited, as the docs are a site generator's source ({sign}); "
            "what hints would have done is in manifest overrides"
        )
    mode: Mode = "repair" if first is None else "bootstrap"
    if mode == "bootstrap":
        subject = corpus_name(
            root, outlines, site.name, description, [sdk.folder for sdk in layout.sdk_folders]
        )
        drafts = draft_manifests(outlines, layout, DEFAULT_MAX_CHUNK_SIZE, subject, folder_name(root))
        if llm == "openai":
            from docs_mcp.fix.llm import consult

            drafts, advice = consult(
                drafts, outlines, layout, model=model, base_url=base_url, api_key=api_key
            )
            notes.extend(advice)
        if site_config is not None and site.recognised:
            # Recorded so that validate and build find the config without the flag.
            where = Path(os.path.relpath(Path(site_config).absolute(), root.absolute())).as_posix()
            drafts[0].data["site"] = {"config": where}
            drafts[0].reasons.append(f"site.config: the {site.generator} config given, {where}")
        for draft in drafts:
            workspace.write_manifest(draft.path, draft.data, *draft.reasons)
        corpus = load(workspace.overlay())
    elif llm != "none":
        notes.append(
            "manifests exist: the model helps only to bootstrap, so repairs use the heuristics alone"
        )
    manifests_only = not inline or sign is not None
    for _ in range(MAX_ROUNDS):
        if not repair(Round(corpus, workspace, layout, manifests_only=manifests_only)):
            break
        corpus = load(workspace.overlay())
    checked = propose_rules(Round(corpus, workspace, layout))
    return FixProposal(
        docs_dir=root,
        mode=mode,
        changes=tuple(workspace.changes()),
        remaining=tuple(
            sorted({*corpus.findings, *checked}, key=lambda f: (f.path, f.line, f.rule, f.message))
        ),
        notes=tuple(notes),
        facets={sdk.folder: sdk.language for sdk in layout.sdk_folders},
    )


class RoundChunks(ChunkCache):
    """The chunked files of this run's loads, in memory: a repair round chunks again only the files
    whose text or settings it changed (the key says so, see ``chunk_cache.file_key``)."""

    def __init__(self) -> None:  # nothing read from disk, nothing saved
        self._files: dict[str, ChunkedFile] = {}
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> ChunkedFile | None:
        found = self._files.get(key)
        self.hits += found is not None
        self.misses += found is None
        return found

    def put(self, key: str, chunked: ChunkedFile) -> None:
        self._files[key] = chunked

    def save(self, compact: bool = False) -> None:
        return None


def _first_look(root: Path, site_config: Path | None) -> tuple[Site, list[FileOutline]] | None:
    """For a folder without manifests: its site and its pages' outlines, read without chunking them
    (the drafted manifests change every file's settings, so chunks made now would be thrown away).
    None when a manifest exists. Raises ``ConfigError`` when ``root`` is not a folder."""
    if not root.is_dir():
        load_corpus(root)  # raises the loader's own error
    tree = walk_docs(root)
    if tree.manifests:
        return None
    site = detect_site(root, site_config)
    pages = sorted([*tree.markdown, *tree.mdx]) if site.reads_mdx else tree.markdown
    return site, _outlines(root, pages)


def _outlines(root: Path, paths: Iterable[str]) -> list[FileOutline]:
    outlines = []
    for path in paths:
        try:
            text = (root / path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # load_corpus reports it
        outlines.append(scan(path, text))
    return outlines
