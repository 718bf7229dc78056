"""What ``GET /healthz`` says about the indexes a server opens in the background (:mod:`.deferred`).

``status`` is ``loading`` until every index is open, then ``ok``; ``failed`` (with the one-line
``error``) when one could not be opened, in the moment before the server stops with that error.
Anything but ``ok`` is answered with 503, so a probe or a load balancer (deploy/kubernetes,
deploy/compose's HAProxy) sends no request to a replica before it can answer one. The index
identity shown is the one being served: the manifest's while it loads.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from docs_mcp.server.hub.deferred import DeferredIndex, LoadStatus

if TYPE_CHECKING:
    from docs_mcp.server.hub.libraries import ServedIndex

__all__ = ["index_health", "overall_status"]


def index_health(index: DeferredIndex[ServedIndex]) -> dict[str, Any]:
    """``status``, ``index`` (identity) and ``index_version`` of one index, and ``error`` once its load
    failed."""
    loaded = index.loaded
    manifest = loaded.current.index.manifest if loaded is not None else index.manifest
    report: dict[str, Any] = {
        "status": index.status,
        "index": manifest.identity,
        "index_version": manifest.docs_mcp_version,
    }
    if index.error is not None:
        report["error"] = str(index.error)
    return report


def overall_status(indexes: Iterable[DeferredIndex[Any]]) -> LoadStatus:
    """``failed`` when any load failed, else ``loading`` while any loads, else ``ok``."""
    statuses = {index.status for index in indexes}
    return "failed" if "failed" in statuses else "loading" if "loading" in statuses else "ok"
