"""Credentials come from the places registries and their tools use, and never show their secret."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from docs_mcp.artifact.credentials import Credentials, find_credentials
from docs_mcp.errors import ConfigError

SECRET = "pa55-w0rd-never-shown"


def _docker_config(tmp_path: Path, config: dict[str, object]) -> dict[str, str]:
    (tmp_path / "config.json").write_text(json.dumps(config))
    return {"DOCKER_CONFIG": str(tmp_path), "PATH": os.environ.get("PATH", "")}


def test_explicit_credentials_win_over_everything_else() -> None:
    explicit = Credentials("me", SECRET, "--username/--password-stdin")
    env = {"DOCS_MCP_REGISTRY_USERNAME": "other", "DOCS_MCP_REGISTRY_PASSWORD": "x"}
    assert find_credentials("ghcr.io", explicit, env) is explicit


def test_the_environment_pair_is_used_and_half_a_pair_is_an_error() -> None:
    env = {"DOCS_MCP_REGISTRY_USERNAME": "ci", "DOCS_MCP_REGISTRY_PASSWORD": SECRET}
    found = find_credentials("registry.example.com", None, env)
    assert found is not None and (found.username, found.password) == ("ci", SECRET)
    assert "DOCS_MCP_REGISTRY_USERNAME" in found.source
    with pytest.raises(ConfigError, match="set both"):
        find_credentials("registry.example.com", None, {"DOCS_MCP_REGISTRY_USERNAME": "ci"})


def test_github_token_is_used_for_ghcr_only(tmp_path: Path) -> None:
    env = {"GITHUB_TOKEN": SECRET, "GITHUB_ACTOR": "octocat", "DOCKER_CONFIG": str(tmp_path)}
    found = find_credentials("ghcr.io", None, env)
    assert found is not None and (found.username, found.password, found.source) == (
        "octocat",
        SECRET,
        "GITHUB_TOKEN",
    )
    assert find_credentials("registry.example.com", None, env) is None


def test_docker_config_auths_are_read(tmp_path: Path) -> None:
    auth = base64.b64encode(f"robot:{SECRET}".encode()).decode()
    env = _docker_config(tmp_path, {"auths": {"registry.example.com": {"auth": auth}}})
    found = find_credentials("registry.example.com", None, env)
    assert found is not None and (found.username, found.password) == ("robot", SECRET)
    assert str(tmp_path / "config.json") in found.source
    assert find_credentials("elsewhere.example.com", None, env) is None


def test_a_docker_credential_helper_is_run_like_the_docker_cli_runs_it(tmp_path: Path) -> None:
    helper = tmp_path / "bin" / "docker-credential-fake"
    helper.parent.mkdir()
    answer = json.dumps({"ServerURL": "x", "Username": "helped", "Secret": SECRET})
    helper.write_text(
        f"#!/bin/sh\nread host\n[ \"$host\" = registry.example.com ] && echo '{answer}' && exit 0\n"
        "echo 'credentials not found in native keychain'; exit 1\n"
    )
    helper.chmod(0o755)
    env = _docker_config(tmp_path, {"credHelpers": {"registry.example.com": "fake"}, "credsStore": "fake"})
    env["PATH"] = f"{helper.parent}{os.pathsep}{env['PATH']}"
    found = find_credentials("registry.example.com", None, env)
    assert found is not None and (found.username, found.password) == ("helped", SECRET)
    assert "docker-credential-fake" in found.source
    assert find_credentials("unknown.example.com", None, env) is None  # the helper has none: anonymous


def test_a_missing_credential_helper_is_a_clear_error(tmp_path: Path) -> None:
    env = _docker_config(tmp_path, {"credsStore": "nonexistent-helper"})
    env["PATH"] = str(tmp_path)
    with pytest.raises(ConfigError, match="docker-credential-nonexistent-helper is not on PATH"):
        find_credentials("registry.example.com", None, env)


def test_no_source_at_all_means_anonymous(tmp_path: Path) -> None:
    assert find_credentials("registry.example.com", None, {"DOCKER_CONFIG": str(tmp_path)}) is None


def test_credentials_never_show_their_secret() -> None:
    credentials = Credentials("robot", SECRET, "somewhere")
    assert SECRET not in repr(credentials)
    assert SECRET not in credentials.describe()
    assert "robot" in credentials.describe()
