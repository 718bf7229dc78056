"""Registry credentials, found the way registries and their tools expect, in this order:

1. given explicitly (``--username`` with ``--password-stdin``, or the ``credentials`` argument);
2. ``DOCS_MCP_REGISTRY_USERNAME`` and ``DOCS_MCP_REGISTRY_PASSWORD``;
3. ``GITHUB_TOKEN`` for ``ghcr.io`` (what a GitHub Actions job has);
4. Docker's ``config.json`` (``$DOCKER_CONFIG/config.json`` or ``~/.docker/config.json``): an ``auths``
   entry, else the registry's ``credHelpers`` entry or the ``credsStore``, run as
   ``docker-credential-NAME get`` like the docker CLI and oras do.

None of them: anonymous. A :class:`Credentials` never shows its secret: not in ``repr``, messages or
JSON; errors name only its ``source`` (and the user name).
"""

from __future__ import annotations

import base64
import binascii
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.errors import ConfigError
from docs_mcp.limits import loads_json

__all__ = [
    "GITHUB_TOKEN_ENV",
    "PASSWORD_ENV",
    "USERNAME_ENV",
    "Credentials",
    "docker_config_credentials",
    "find_credentials",
]

USERNAME_ENV = "DOCS_MCP_REGISTRY_USERNAME"
PASSWORD_ENV = "DOCS_MCP_REGISTRY_PASSWORD"
GITHUB_TOKEN_ENV = "GITHUB_TOKEN"
_HELPER_TIMEOUT = 30.0


@dataclass(frozen=True)
class Credentials:
    """A user name and secret for one registry, and where they came from (shown in errors)."""

    username: str
    password: str = field(repr=False)
    source: str = "explicit credentials"

    def describe(self) -> str:
        """Who and from where, never the secret: ``user 'ci' from DOCS_MCP_REGISTRY_USERNAME/...``."""
        return f"user {self.username!r} from {self.source}"


def find_credentials(
    registry: str,
    explicit: Credentials | None = None,
    env: Mapping[str, str] | None = None,
) -> Credentials | None:
    """The credentials to use for ``registry`` (``host[:port]``), or None for anonymous access.

    Raises ``ConfigError`` when only one of the two environment variables is set, or Docker's
    config names a credential helper that fails.
    """
    if explicit is not None:
        return explicit
    environ = os.environ if env is None else env
    username, password = environ.get(USERNAME_ENV, ""), environ.get(PASSWORD_ENV, "")
    if username and password:
        return Credentials(username, password, f"{USERNAME_ENV}/{PASSWORD_ENV.rsplit('_', 1)[-1]}")
    if bool(username) != bool(password):
        raise ConfigError(f"set both {USERNAME_ENV} and {PASSWORD_ENV}, or neither")
    token = environ.get(GITHUB_TOKEN_ENV, "")
    if token and registry == "ghcr.io":
        # ghcr.io accepts any user name with a token; the actor's name reads better in its audit log.
        return Credentials(environ.get("GITHUB_ACTOR", "docs-mcp"), token, GITHUB_TOKEN_ENV)
    return docker_config_credentials(registry, environ)


def docker_config_credentials(registry: str, env: Mapping[str, str]) -> Credentials | None:
    """Credentials for ``registry`` from Docker's ``config.json``, or None when it has none.

    Raises ``ConfigError`` for an unreadable config or a failing credential helper.
    """
    config_dir = Path(env["DOCKER_CONFIG"]) if env.get("DOCKER_CONFIG") else Path.home() / ".docker"
    path = config_dir / "config.json"
    try:
        config = loads_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read Docker's credentials file {path}: {error}") from error
    source = f"Docker config {path}"
    for key in _config_keys(registry):
        entry = config.get("auths", {}).get(key) or {}
        if entry.get("auth"):
            return _decode_auth(entry["auth"], f"{source} (auths.{key})")
    helper = config.get("credHelpers", {}).get(registry) or config.get("credsStore")
    if helper:
        return _from_helper(str(helper), registry, source, env.get("PATH"))
    return None


def _config_keys(registry: str) -> list[str]:
    # The docker CLI writes Docker Hub's key as a URL; others by host, sometimes with a scheme.
    return [registry, f"https://{registry}", f"http://{registry}"]


def _decode_auth(value: str, source: str) -> Credentials:
    try:
        username, colon, password = base64.b64decode(value).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        colon = ""
    if not colon:
        raise ConfigError(f"{source}: the auth value is not base64 of 'user:password'; log in again")
    return Credentials(username, password, source)


def _from_helper(helper: str, registry: str, source: str, path: str | None) -> Credentials | None:
    program = f"docker-credential-{helper}"
    executable = shutil.which(program, path=path)
    if executable is None:
        raise ConfigError(f"{source} names the credential helper {helper!r}, but {program} is not on PATH")
    try:
        done = subprocess.run(
            [executable, "get"],
            input=registry.encode(),
            capture_output=True,
            timeout=_HELPER_TIMEOUT,
            check=False,
        )
    except OSError as error:
        raise ConfigError(f"the credential helper {program} could not run: {error}") from None
    except subprocess.TimeoutExpired:
        raise ConfigError(
            f"the credential helper {program} did not answer in {_HELPER_TIMEOUT:g} s"
        ) from None
    if done.returncode != 0:
        # "credentials not found" is the helper's way of saying: this registry is anonymous.
        return None
    try:
        answer = loads_json(done.stdout.decode("utf-8"))
        return Credentials(str(answer["Username"]), str(answer["Secret"]), f"{program} ({source})")
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"the credential helper {program} gave an answer that is not its JSON") from None
