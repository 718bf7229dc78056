"""A registry with htpasswd auth: the right credentials work from every source; wrong ones fail
with a message naming where they came from, and no secret is ever printed."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest
from registry_support import REGISTRY_PASSWORD as PASSWORD
from registry_support import REGISTRY_USER as USER
from registry_support import Registry

from docs_mcp.artifact import Credentials, publish, pull
from docs_mcp.errors import RegistryUnauthorized

pytestmark = pytest.mark.timeout(120)
REPO_ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "docs_mcp", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        env=env,
    )


def test_explicit_credentials_publish_and_pull(
    auth_registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    credentials = Credentials(USER, PASSWORD, "test")
    published = publish(index_a, auth_registry.ref("auth/index"), credentials=credentials, cache_dir=tmp_path)
    pulled = pull(
        auth_registry.ref("auth/index"), tmp_path / "dest", credentials=credentials, cache_dir=tmp_path
    )
    assert pulled.digest == published.digest


def test_wrong_credentials_are_refused_naming_their_source_but_never_their_value(
    auth_registry: Registry, tmp_path: Path
) -> None:
    wrong = Credentials(USER, "not-the-password-123", "DOCS_MCP_REGISTRY_USERNAME/PASSWORD")
    with pytest.raises(RegistryUnauthorized) as refused:
        pull(auth_registry.ref("auth/index"), tmp_path / "dest", credentials=wrong, cache_dir=tmp_path)
    message = str(refused.value)
    assert f"user {USER!r} from DOCS_MCP_REGISTRY_USERNAME/PASSWORD" in message
    assert "not-the-password-123" not in message
    assert not (tmp_path / "dest").exists()


def test_no_credentials_on_a_private_registry_says_anonymous(auth_registry: Registry, tmp_path: Path) -> None:
    with pytest.raises(RegistryUnauthorized, match=r"no credentials \(anonymous\)"):
        pull(auth_registry.ref("auth/index"), tmp_path / "dest", cache_dir=tmp_path, credentials=None)


def test_the_cli_takes_the_password_on_stdin_and_prints_no_secret(
    auth_registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DOCS_MCP_CACHE_DIR": str(tmp_path / "cache")}
    common = ["--username", USER, "--password-stdin", "--json"]
    done = _cli(
        "publish",
        auth_registry.ref("cli/auth"),
        "--index",
        str(index_a),
        *common,
        stdin=PASSWORD + "\n",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["reference"].endswith(result["digest"])
    pulled = _cli(
        "pull",
        auth_registry.ref("cli/auth"),
        "--out",
        str(tmp_path / "dest"),
        *common,
        stdin=PASSWORD,
        env=env,
    )
    assert pulled.returncode == 0, pulled.stderr
    assert json.loads(pulled.stdout)["digest"] == result["digest"]
    refused = _cli(
        "pull",
        auth_registry.ref("cli/auth"),
        "--out",
        str(tmp_path / "x"),
        *common,
        stdin="wrong-pass-456",
        env=env,
    )
    assert refused.returncode == 1
    assert "--username/--password-stdin" in refused.stderr and "HTTP 401" in refused.stderr
    for output in (done, pulled, refused):
        assert PASSWORD not in output.stdout + output.stderr
        assert "wrong-pass-456" not in output.stdout + output.stderr


def test_environment_and_docker_config_credentials_are_used(
    auth_registry: Registry, index_a: Path, tmp_path: Path
) -> None:
    base = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DOCS_MCP_CACHE_DIR": str(tmp_path / "cache")}
    from_env = {**base, "DOCS_MCP_REGISTRY_USERNAME": USER, "DOCS_MCP_REGISTRY_PASSWORD": PASSWORD}
    done = _cli("publish", auth_registry.ref("env/auth"), "--index", str(index_a), env=from_env)
    assert done.returncode == 0, done.stderr
    docker = tmp_path / "docker"
    docker.mkdir()
    auth = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    (docker / "config.json").write_text(json.dumps({"auths": {auth_registry.host: {"auth": auth}}}))
    pulled = _cli(
        "pull",
        auth_registry.ref("env/auth"),
        "--out",
        str(tmp_path / "dest"),
        env={**base, "DOCKER_CONFIG": str(docker)},
    )
    assert pulled.returncode == 0, pulled.stderr
    assert PASSWORD not in done.stdout + done.stderr + pulled.stdout + pulled.stderr
