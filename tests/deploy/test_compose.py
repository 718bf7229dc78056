"""deploy/compose: compose.yaml and haproxy.cfg say what tests/images/test_fleet.py runs (that test
drives the same topology through testcontainers; ./dev ci-lint checks compose.yaml against the Compose
Specification's schema)."""

from __future__ import annotations

from pathlib import Path

import yaml

COMPOSE_DIR = Path(__file__).resolve().parents[2] / "deploy" / "compose"


def test_compose_yaml_describes_the_fleet_this_test_runs() -> None:
    compose = yaml.safe_load((COMPOSE_DIR / "compose.yaml").read_text())
    serve, lb = compose["services"]["serve"], compose["services"]["lb"]
    assert serve["deploy"]["replicas"] == "${DOCS_MCP_REPLICAS:-3}"
    assert "/healthz" in " ".join(serve["healthcheck"]["test"]) and serve["read_only"] is True
    assert lb["depends_on"]["serve"]["condition"] == "service_healthy"
    assert lb["build"] == {"context": ".", "dockerfile": "Dockerfile.lb"}
    assert lb["ports"] == ["127.0.0.1:${DOCS_MCP_PORT:-8080}:8080"]
    environment = serve["environment"]
    for name in ("INDEX", "CURSOR_SECRET", "AUTH_TOKENS_FILE", "AUTH_ISSUER", "AUTH_AUDIENCE"):
        assert f"DOCS_MCP_{name}" in environment
    config = (COMPOSE_DIR / "haproxy.cfg").read_text()
    assert "server-template serve 8 serve:8000" in config and "uri /healthz" in config
