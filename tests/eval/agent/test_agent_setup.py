"""What is checked before any scenario starts: the scenario files (file and line of each problem),
the key, the endpoint and the model; and the workspace's confinement."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from agent_support import SCRIPTED

from docs_mcp.errors import ConfigError
from docs_mcp.eval.agent import AgentEvalOptions, agent_eval, load_scenarios
from docs_mcp.eval.agent.scenarios import scenario_schema
from docs_mcp.eval.agent.workspace import Workspace, WorkspaceRefused
from testkit.model_wire import WireServer

REPO_ROOT = Path(__file__).resolve().parents[3]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "scenarios.yaml"
    path.write_text(text)
    return path


def test_the_published_schema_is_the_packaged_one() -> None:
    published = (REPO_ROOT / "schemas" / "agent-scenarios.schema.json").read_bytes()
    packaged = REPO_ROOT / "src" / "docs_mcp" / "eval" / "agent" / "schemas" / "agent-scenarios.schema.json"
    assert published == packaged.read_bytes()
    assert scenario_schema()["title"] == "docs-mcp agent-eval scenarios"


def test_every_shipped_scenario_file_loads() -> None:
    loaded = load_scenarios(REPO_ROOT / "examples" / "agent-eval")
    assert len({scenario.id for scenario in loaded}) == len(loaded) > 5
    assert all(scenario.expect for scenario in loaded)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "scenarios:\n  - id: a\n    prompt: p\n    promt: typo\n",
            ":2: scenarios[0]: Additional properties",
        ),
        (
            "scenarios:\n  - id: a\n    prompt: p\n    expect:\n"
            "      - answer_contains: x\n        file: y\n",
            ":5: scenarios[0].expect[0]: an assertion needs exactly one of",
        ),
        (
            "scenarios:\n  - id: a\n    prompt: p\n    expect:\n      - answer_regex: '(['\n",
            ":5: scenarios[0].expect[0].answer_regex: not a regular expression",
        ),
        (
            "scenarios:\n  - id: a\n    prompt: p\n    limits: {turns: 0}\n",
            ":4: scenarios[0].limits.turns: 0 is less",
        ),
        ("scenarios:\n  - id: a\n    prompt: [unclosed\n", ":4: the file is not valid YAML"),
        (  # subprocess.run(timeout=1e308) overflowed select() with a traceback after the model's run
            "scenarios:\n  - id: a\n    prompt: p\n    expect:\n"
            "      - script: 'true'\n        timeout: 1.0e+308\n",
            ":6: scenarios[0].expect[0].timeout: 1e+308 is greater than the maximum of 86400",
        ),
        (
            "scenarios:\n  - {id: a, prompt: p}\n  - {id: a, prompt: q}\n",
            ":3: scenario id 'a' is already used at",
        ),
    ],
)
def test_a_bad_scenario_file_is_refused_naming_the_file_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as refused:
        load_scenarios(path)
    assert f"{path}{expected}" in str(refused.value)


def test_the_workspace_refuses_paths_that_leave_it(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("no")
    os.symlink(tmp_path / "secret.txt", root / "link.txt")
    workspace = Workspace(root)
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "link.txt", "a/../../secret.txt"):
        with pytest.raises(WorkspaceRefused):
            workspace.call("read_file", {"path": path})
    assert (
        workspace.call("write_file", {"path": "src/main.py", "content": "x = 1\n"})
        == "wrote src/main.py (6 characters)"
    )
    assert workspace.call("list_files", {}) == "link.txt\nsrc/main.py"
    assert workspace.call("read_file", {"path": "src/main.py"}) == "x = 1\n"
    with pytest.raises(WorkspaceRefused, match=r"cannot write 'src/main\.py/inner\.py'"):
        workspace.call("write_file", {"path": "src/main.py/inner.py", "content": "a file is no folder"})


def test_a_setup_that_fails_or_a_file_outside_is_refused_naming_the_scenario(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"s\.yaml:3: workspace.setup exited 3: oops"):
        Workspace(tmp_path).prepare({}, "echo oops >&2; exit 3", "s.yaml:3")
    with pytest.raises(ConfigError, match=r"s\.yaml:3: workspace.files: '../x' is outside"):
        Workspace(tmp_path).prepare({"../x": "no"}, None, "s.yaml:3")


def _options(wire: WireServer | None, index: Path, **given: object) -> AgentEvalOptions:
    base_url = wire.base_url if wire else given.pop("base_url", None)
    return AgentEvalOptions(SCRIPTED, index=index, base_url=base_url, **{"model": "scripted", **given})  # type: ignore[arg-type]


def test_a_model_the_endpoint_does_not_serve_is_named_before_any_scenario(
    scripted_wire: WireServer, acme_index: Path, model_keys: None
) -> None:
    with pytest.raises(ConfigError, match=r"serves no model 'gpt-9'; it serves: scripted"):
        agent_eval(_options(scripted_wire, acme_index, model="gpt-9"))
    with pytest.raises(ConfigError, match=r"has no model 'gpt-9' \(HTTP 404\): check --model"):
        agent_eval(_options(scripted_wire, acme_index, model="gpt-9", provider="anthropic"))
    assert {path for path, _ in scripted_wire.log} == {"/v1/models", "/v1/models/gpt-9"}


def test_a_missing_or_refused_key_is_named_before_any_scenario(
    scripted_wire: WireServer, acme_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="set OPENAI_API_KEY"):
        agent_eval(_options(None, acme_index, base_url="https://models.example.com/v1"))
    with pytest.raises(ConfigError, match="set ANTHROPIC_API_KEY"):
        agent_eval(_options(scripted_wire, acme_index, provider="anthropic"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "wrong")
    with pytest.raises(ConfigError, match=r"rejected the API key .HTTP 401.: check ANTHROPIC_API_KEY"):
        agent_eval(_options(scripted_wire, acme_index, provider="anthropic"))
    # On loopback no key is needed, so the placeholder is sent: this server wants a real one.
    with pytest.raises(ConfigError, match=r"rejected the API key .HTTP 401.: check OPENAI_API_KEY"):
        agent_eval(_options(scripted_wire, acme_index))


def test_an_endpoint_nothing_answers_at_is_named_before_any_scenario(acme_index: Path) -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    from docs_mcp.openai_api import RetryPolicy

    with pytest.raises(
        ConfigError, match=rf"cannot list the models of http://127.0.0.1:{port}/v1: connection failed"
    ):
        agent_eval(_options(None, acme_index, base_url=f"http://127.0.0.1:{port}/v1", retry=RetryPolicy(1)))


def test_the_docs_server_is_named_once(acme_index: Path) -> None:
    with pytest.raises(ConfigError, match="name the docs server once"):
        agent_eval(AgentEvalOptions(SCRIPTED, "m", index=acme_index, url="http://127.0.0.1:1/mcp"))


def test_a_changed_scenario_has_a_new_digest_so_a_resumed_run_repeats_it(tmp_path: Path) -> None:
    first = load_scenarios(
        _write(tmp_path, "scenarios:\n  - {id: a, prompt: one}\n  - {id: b, prompt: same}\n")
    )
    second = load_scenarios(
        _write(tmp_path, "scenarios:\n  - {id: a, prompt: two}\n  - {id: b, prompt: same}\n")
    )
    assert first[0].digest != second[0].digest
    assert first[1].digest == second[1].digest


def test_a_scenario_file_past_the_readers_limit_says_to_split_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "scenarios:\n  - id: a\n    prompt: " + "x" * 70_000 + "\n")
    with pytest.raises(ConfigError, match="split it into several files in one folder"):
        load_scenarios(path)
