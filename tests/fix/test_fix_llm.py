"""``fix --llm openai`` against a real HTTP server on 127.0.0.1 speaking the chat-completions format:
a good answer is merged (never over the layout's facts), a bad or failed one falls back to the
heuristics with a note, 429 and 5xx are retried."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_chat import VALID_KEY, FakeChatServer

from docs_mcp.corpus.validation import validate
from docs_mcp.errors import ConfigError
from docs_mcp.fix import fix
from docs_mcp.fix.llm import MAX_ATTEMPTS

pytestmark = pytest.mark.timeout(120)

FIXTURE = Path(__file__).with_name("fixtures") / "fix" / "bootstrap_sdk" / "docs"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChatServer]:
    monkeypatch.setenv("OPENAI_API_KEY", VALID_KEY)
    with FakeChatServer().serve() as running:
        yield running


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "docs"))


def good_answer() -> str:
    manifests: list[dict[str, Any]] = [
        {
            "folder": "",
            "manifest": {
                "version": "1",
                "mcpServerInstructions": "Acme Payments docs: search_docs first, then get_doc.",
                "strategy": {"chunk_by": "h2"},
                "taxonomy": {"audience": {"properties": {"developers": {}}}},
            },
            "reasons": ["instructions name the product and both tools"],
        },
        {
            "folder": "sdks/python",
            "manifest": {
                "version": "1",
                # The model gets the language wrong: the layout wins.
                "metadata": {"language": "ruby", "audience": "developers"},
                "strategy": {"chunk_by": "h2"},
                "overrides": [{"pattern": "models/*.md", "strategy": {"chunk_by": "file"}}],
            },
            "reasons": ["model pages are one topic each"],
        },
    ]
    return json.dumps({"manifests": manifests})


def proposed_manifests(proposal: Any) -> dict[str, dict[str, Any]]:
    return {c.path: json.loads(c.after) for c in proposal.changes if c.path.endswith(".docs-mcp.json")}


def test_a_good_answer_is_merged_and_the_layout_keeps_its_facts(server: FakeChatServer, docs: Path) -> None:
    server.answer_next(good_answer())
    proposal = fix(docs, llm="openai", model="test-model", base_url=server.base_url)
    manifests = proposed_manifests(proposal)
    root, python = manifests[".docs-mcp.json"], manifests["sdks/python/.docs-mcp.json"]
    assert root["mcpServerInstructions"] == "Acme Payments docs: search_docs first, then get_doc."
    assert root["taxonomy"]["audience"] == {"properties": {"developers": {}}}
    assert python["metadata"] == {"language": "python", "scope": "sdk-specific", "audience": "developers"}
    reasons = [r for c in proposal.changes for r in c.reasons]
    assert "(model) model pages are one topic each" in reasons
    assert proposal.notes == ("test-model helped draft the manifests (its reasons are marked (model))",)
    proposal.write()
    assert validate(docs, strict=True).findings == []


def test_the_request_holds_a_compact_outline_and_asks_for_the_manifest_schema(
    server: FakeChatServer, docs: Path
) -> None:
    server.answer_next(good_answer())
    fix(docs, llm="openai", base_url=server.base_url)
    [request] = server.bodies
    assert request["model"] == "gpt-4o-mini"
    schema = request["response_format"]["json_schema"]["schema"]
    assert schema["$defs"]["manifest"]["required"] == ["version"]
    outline = json.loads(request["messages"][1]["content"])
    assert {s["folder"] for s in outline["sdk_folders"]} == {"sdks/python", "sdks/typescript"}
    sent = request["messages"][1]["content"]
    # Headings and one sample line, never whole files.
    assert "## createPayment" in sent and "acme.payments.create(amount=100)" not in sent


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "the answer is not JSON"),
        (
            json.dumps({"manifests": [{"folder": "", "manifest": {"version": 1}}]}),
            "breaks the manifest schema",
        ),
        (
            json.dumps(
                {"manifests": [{"folder": "", "manifest": {"version": "1", "strategy": {"chunk_by": "h9"}}}]}
            ),
            "breaks the manifest schema",
        ),
        (
            json.dumps({"manifests": [{"folder": "nowhere", "manifest": {"version": "1"}}]}),
            "a folder with no draft",
        ),
    ],
)
def test_an_unusable_answer_falls_back_to_the_heuristics_with_a_note(
    server: FakeChatServer, docs: Path, content: str, why: str
) -> None:
    server.answer_next(content)
    proposal = fix(docs, llm="openai", base_url=server.base_url)
    [note] = proposal.notes
    assert note.startswith("the model's answer was not used: ") and why in note
    assert proposal.render() == fix(docs).render()


def test_a_429_is_retried_after_the_wait_the_server_asks(server: FakeChatServer, docs: Path) -> None:
    server.fail_next(429, headers={"retry-after-ms": "10"})
    server.answer_next(good_answer())
    proposal = fix(docs, llm="openai", base_url=server.base_url)
    assert len(server.requests) == 2
    assert "test-model" not in proposal.notes[0] and proposal.notes[0].endswith(
        "(its reasons are marked (model))"
    )


def test_a_server_failing_every_attempt_falls_back_to_the_heuristics(
    server: FakeChatServer, docs: Path
) -> None:
    server.fail_next(500, count=MAX_ATTEMPTS, headers={"retry-after-ms": "1"})
    proposal = fix(docs, llm="openai", base_url=server.base_url)
    assert len(server.requests) == MAX_ATTEMPTS
    [note] = proposal.notes
    assert note.startswith("the model gave no answer (HTTP 500")
    assert proposal.render() == fix(docs).render()


def test_a_rejected_key_is_not_retried(
    server: FakeChatServer, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    proposal = fix(docs, llm="openai", base_url=server.base_url)
    assert len(server.requests) == 1 and "HTTP 401" in proposal.notes[0]


def test_a_remote_server_without_a_key_is_a_config_error(docs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        fix(docs, llm="openai", base_url="https://models.example.com/v1")


def test_with_manifests_the_model_is_not_asked(server: FakeChatServer, docs: Path) -> None:
    fix(docs).write()
    proposal = fix(docs, llm="openai", base_url=server.base_url)
    assert server.bodies == [] and proposal.empty
    assert "only to bootstrap" in proposal.notes[0]
