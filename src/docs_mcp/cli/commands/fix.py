"""``docs-mcp fix``: propose docs manifests (bootstrap) or repair their drift; ``--write`` applies."""

from __future__ import annotations

import argparse
import sys

from docs_mcp.cli.paths import path_argument


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "fix",
        help="propose .docs-mcp.json docs manifests for a docs folder, or repair their drift",
        description="Without docs manifests, propose them from the folder's layout and outlines (strategies, "
        "language and scope facets, server instructions); with them, repair drift (sections that "
        "outgrew their strategy, files no strategy covers, facet values that contradict the layout, "
        "dangling hints). Prints a unified diff with one reason per change; writes only with --write. "
        "Writes only docs manifests (.docs-mcp.json) unless --inline; never edits a page of a site "
        "generator's source (a generator config in or near the folder, generator syntax or pages). "
        "A dry run keeps its plan in the cache folder; --write applies it while the folder is "
        "unchanged instead of analysing again.",
    )
    parser.add_argument("--docs-dir", type=path_argument, required=True, help="the markdown folder")
    parser.add_argument("--write", action="store_true", help="apply the proposal (default: only print it)")
    parser.add_argument(
        "--inline",
        action="store_true",
        help="also edit pages: section hint comments before headings, front matter values, dangling "
        "hints removed (default: manifests only, where cuts become per-file overrides; never in a site "
        "generator's source)",
    )
    parser.add_argument(
        "--no-plan",
        action="store_true",
        help="analyse the folder even when a dry run's plan for it is fresh, and keep no plan "
        "(plans: $DOCS_MCP_CACHE_DIR/fix-plans, else $XDG_CACHE_HOME/docs-mcp/fix-plans or "
        "~/.cache/docs-mcp/fix-plans)",
    )
    parser.add_argument(
        "--llm",
        choices=("none", "openai"),
        default="none",
        help="openai: ask a chat model to help bootstrap (needs the openai extra and OPENAI_API_KEY, "
        "or --base-url of a compatible server); default none",
    )
    parser.add_argument("--model", help="the chat model (default gpt-4o-mini)")
    parser.add_argument(
        "--description",
        help="what the docs are (the corpus name): the drafted server instructions use it, so they agree "
        "with build --description",
    )
    parser.add_argument(
        "--site-config",
        type=path_argument,
        help="the site generator's config (mkdocs.yml, docusaurus.config.js|ts, Sphinx conf.py), read as "
        "data; default: the root manifest's site.config, else one found in or beside the docs folder",
    )
    parser.add_argument("--base-url", help="an OpenAI-compatible server's base URL")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.corpus.validation_output import format_finding
    from docs_mcp.fix import fix, plans_dir

    proposal = fix(
        args.docs_dir,
        llm=args.llm,
        model=args.model,
        base_url=args.base_url,
        site_config=args.site_config,
        description=args.description,
        inline=args.inline,
        plans=None if args.no_plan else plans_dir(),
    )
    for note in proposal.notes:
        print(f"note: {note}", file=sys.stderr)
    if proposal.empty:
        print("nothing to propose", file=sys.stderr)
    else:
        sys.stdout.write(proposal.render())
    if proposal.remaining:
        print(f"{len(proposal.remaining)} findings fix cannot resolve remain:", file=sys.stderr)
        for finding in proposal.remaining:
            print(f"  {format_finding(finding)}", file=sys.stderr)
    if args.write and not proposal.empty:
        written = proposal.write()
        print(f"wrote {len(written)} files", file=sys.stderr)
    elif not proposal.empty:
        print(f"{len(proposal.changes)} files to change; run again with --write to apply", file=sys.stderr)
    return 0
