"""docs_mcp.eval.agent: does the docs server help an agent do a task? (``docs-mcp agent-eval``)

``agent_eval(AgentEvalOptions(...))`` runs YAML scenarios (:mod:`.scenarios`, checked against
``schemas/agent-scenarios.schema.json``) with a real model (:mod:`.providers`: any OpenAI-compatible
chat-completions endpoint, or Anthropic's Messages API) in a small agent loop (:mod:`.loop`) that
offers the docs server's tools over a real MCP session and three workspace tools (:mod:`.workspace`);
judges each run (:mod:`.assertions`), appends it to a results file a rerun resumes from
(:mod:`.results`) and reports pass rate, activation, turns, tokens, cost and tool calls per arm,
category and scenario, the with/without comparison and baseline deltas (:mod:`.report`).

The names in ``__all__`` load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_mcp._lazy import lazy_exports

if TYPE_CHECKING:
    from docs_mcp.eval.agent.harness import AgentEvalOptions as AgentEvalOptions
    from docs_mcp.eval.agent.harness import agent_eval as agent_eval
    from docs_mcp.eval.agent.report import AgentReport as AgentReport
    from docs_mcp.eval.agent.scenarios import Scenario as Scenario
    from docs_mcp.eval.agent.scenarios import load_scenarios as load_scenarios

__all__, __getattr__, __dir__ = lazy_exports(__name__)
