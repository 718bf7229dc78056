"""``docs-mcp agent-eval``: does the docs server help an agent? YAML scenarios run by a real model
with (and with --compare, without) the server's tools; pass rate, activation, turns, tokens, cost."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from docs_mcp.cli.paths import path_argument


def _names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "agent-eval",
        help="run agent scenarios with a real model, with and without the docs server",
        description=(
            "Run each scenario of SCENARIOS (a YAML file or a folder of them, see "
            "schemas/agent-scenarios.schema.json) with a model that gets the docs server's tools over MCP "
            "and workspace tools, judge the answer and the files it wrote, and report. "
            "Keys come from the environment: OPENAI_API_KEY (--provider openai; none for a server on "
            "this machine) or ANTHROPIC_API_KEY (--provider anthropic)."
        ),
    )
    parser.add_argument(
        "scenarios", type=path_argument, metavar="SCENARIOS", help="a scenario file or folder"
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--index", help="the --out folder of docs-mcp build, or oci://REF, served as users run it"
    )
    where.add_argument("--url", help="the MCP URL of a running docs server (http://HOST:PORT/mcp)")
    parser.add_argument(
        "--transport", choices=("stdio", "http"), default="stdio", help="how to serve --index (default stdio)"
    )
    parser.add_argument("--provider", choices=("openai", "anthropic"), default="openai")
    parser.add_argument("--model", required=True, help="the model name, as the endpoint lists it")
    parser.add_argument(
        "--base-url", help="an OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama: http://127.0.0.1:PORT/v1)"
    )
    parser.add_argument("--compare", action="store_true", help="also run each scenario without the server")
    parser.add_argument("--concurrency", type=int, default=1, help="scenarios run at once (default 1)")
    parser.add_argument("--only", type=_names, default=[], metavar="ID,...", help="run only these scenarios")
    parser.add_argument("--out", type=path_argument, help="write the JSON report to this file")
    parser.add_argument(
        "--results",
        type=path_argument,
        help="each finished run is appended here and a rerun skips it (default: OUT.runs.jsonl, "
        "or agent-eval.runs.jsonl)",
    )
    parser.add_argument("--fresh", action="store_true", help="ignore earlier results: run everything again")
    parser.add_argument("--baseline", type=path_argument, help="an earlier --out report: show deltas")
    parser.add_argument(
        "--prices", type=path_argument, help="a JSON file of model -> {input, output} $ per million tokens"
    )
    parser.add_argument(
        "--keep-workspaces", type=path_argument, metavar="DIR", help="keep each run's folder under DIR"
    )
    parser.add_argument("--json", action="store_true", help="print the JSON report instead of tables")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from docs_mcp.eval.agent import AgentEvalOptions, agent_eval
    from docs_mcp.eval.agent.report_text import render

    results = args.results
    if results is None:
        results = (
            args.out.with_name(args.out.stem + ".runs.jsonl") if args.out else Path("agent-eval.runs.jsonl")
        )
    report = agent_eval(
        AgentEvalOptions(
            scenarios=args.scenarios,
            model=args.model,
            index=args.index,
            url=args.url,
            transport=args.transport,
            provider=args.provider,
            base_url=args.base_url,
            compare=args.compare,
            concurrency=args.concurrency,
            results=results,
            fresh=args.fresh,
            baseline=args.baseline,
            prices=args.prices,
            only=args.only,
            keep_workspaces=args.keep_workspaces,
        ),
        progress=lambda line: print(f"agent-eval: {line}", file=sys.stderr, flush=True),
    ).to_dict()
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if args.out is not None:
        try:
            args.out.write_text(text + "\n", encoding="utf-8")
        except OSError as error:
            print(f"docs-mcp: error: cannot write {args.out}: {error}", file=sys.stderr)
            return 1
    print(text if args.json else render(report))
    return 0
