"""The registry client: one repository of an OCI registry, over oras-py's ``Registry``.

oras-py supplies the HTTP session and the bearer-token flow (realm, service, scope; anonymous or
with basic credentials). Its own request loop is replaced: it retries every failure five times with
sleeps of up to 81 s (minutes before "registry unreachable" could be said) and handles only one kind
of challenge per client. Here a request is sent once with a timeout, a ``401`` is answered by the
scheme the registry asks for (``Basic`` or ``Bearer``), and every failure becomes a
:class:`~docs_mcp.errors.RegistryError` naming the registry, the reference and the credentials'
source, never their values. Manifests are sent as exact bytes, so the digest docs-mcp computed is
the digest the registry stores.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from docs_mcp.artifact.credentials import Credentials
from docs_mcp.artifact.oci import ACCEPTED_MANIFEST_TYPES, MANIFEST_MEDIA_TYPE, Descriptor, sha256_digest
from docs_mcp.artifact.reference import Reference
from docs_mcp.errors import (
    DigestMismatch,
    MissingExtra,
    ReferenceNotFound,
    RegistryError,
    RegistryUnauthorized,
    RegistryUnreachable,
)
from docs_mcp.extras import install_line

if TYPE_CHECKING:
    import requests

EXTRA = install_line("artifact")
DEFAULT_TIMEOUT = 60.0
MAX_MANIFEST_BYTES = 4 * 1024 * 1024  # the distribution spec's limit for manifests
_CHUNK = 1 << 20


def _oras() -> Any:
    """oras-py's provider module, or a ``MissingExtra`` (a ConfigError) naming the extra that installs it."""
    try:
        import oras.provider
    except ImportError as error:
        raise MissingExtra(
            f"publishing and pulling indexes needs the artifact extra: {EXTRA}", "artifact"
        ) from error
    return oras.provider


@dataclass(frozen=True)
class FetchedManifest:
    """A manifest as the registry returned it: exact bytes, their digest, and its media type."""

    body: bytes
    digest: str
    media_type: str


class RegistryClient:
    """Reads and writes one repository (``reference.registry/reference.repository``).

    Plain HTTP is used for ``insecure=True``, or by default for a loopback registry (127.0.0.1,
    localhost); anything else speaks HTTPS with certificate checks.
    """

    def __init__(
        self,
        reference: Reference,
        credentials: Credentials | None,
        *,
        insecure: bool | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.reference = reference
        plain = reference.is_loopback if insecure is None else insecure
        self._registry = _oras().Registry(hostname=reference.registry, insecure=plain, auth_backend="token")
        self._base = f"{'http' if plain else 'https'}://{reference.registry}/v2/{reference.repository}"
        self._credentials = credentials
        if credentials is not None:
            self._registry.auth.set_basic_auth(credentials.username, credentials.password)
        self._authorization: str | None = None
        self._timeout = timeout

    # -- manifests -------------------------------------------------------------------------------

    def get_manifest(self, target: str) -> FetchedManifest:
        """The manifest at ``target`` (a tag or ``sha256:`` digest), its bytes checked against a digest
        target. Raises ``ReferenceNotFound``, ``DigestMismatch`` or another ``RegistryError``."""
        headers = {"Accept": ", ".join(ACCEPTED_MANIFEST_TYPES)}
        with self._request(
            "GET", f"{self._base}/manifests/{target}", headers=headers, stream=True
        ) as response:
            self._check(response, f"manifest {target}")
            body = _read_capped(response, MAX_MANIFEST_BYTES, f"the manifest of {self.reference}")
            media_type = response.headers.get("Content-Type", "").split(";")[0].strip()
        digest = sha256_digest(body)
        if target.startswith("sha256:") and digest != target:
            raise DigestMismatch(f"the registry answered {target} with a manifest whose digest is {digest}")
        return FetchedManifest(body, digest, media_type)

    def manifest_digest(self, target: str) -> str | None:
        """The digest of the manifest at ``target``, or None when there is none (a cheap ``HEAD``)."""
        headers = {"Accept": ", ".join(ACCEPTED_MANIFEST_TYPES)}
        with self._request("HEAD", f"{self._base}/manifests/{target}", headers=headers) as response:
            if response.status_code == 404:
                return None
            self._check(response, f"manifest {target}")
            digest = response.headers.get("Docker-Content-Digest")
        # Registries that do not send the digest on HEAD: read the manifest instead.
        return digest if digest else self.get_manifest(target).digest

    def put_manifest(self, body: bytes, target: str) -> None:
        """Store ``body`` (an OCI image manifest) at ``target``, a tag or its own digest."""
        headers = {"Content-Type": MANIFEST_MEDIA_TYPE}
        with self._request("PUT", f"{self._base}/manifests/{target}", headers=headers, data=body) as response:
            self._check(response, f"manifest {target}", writing=True)

    # -- blobs -----------------------------------------------------------------------------------

    def has_blob(self, descriptor: Descriptor) -> bool:
        """Whether the repository already holds the blob (``HEAD``)."""
        with self._request("HEAD", f"{self._base}/blobs/{descriptor.digest}") as response:
            if response.status_code == 404:
                return False
            self._check(response, f"blob {descriptor.digest}")
            return True

    def put_blob(self, descriptor: Descriptor, source: Path | bytes) -> None:
        """Upload one blob (a monolithic ``POST`` + ``PUT``); the registry checks its digest."""
        with self._request(
            "POST", f"{self._base}/blobs/uploads/", headers={"Content-Length": "0"}
        ) as started:
            self._check(started, "a blob upload", writing=True)
            location = started.headers.get("Location", "")
        if not location:
            raise RegistryError(f"{self.reference.registry} started an upload without a Location header")
        if location.startswith("/"):
            location = self._base.split("/v2/", 1)[0] + location
        url = f"{location}{'&' if '?' in location else '?'}digest={descriptor.digest}"
        headers = {"Content-Type": "application/octet-stream", "Content-Length": str(descriptor.size)}
        if isinstance(source, bytes):
            with self._request("PUT", url, headers=headers, data=source) as response:
                self._check(response, f"blob {descriptor.digest}", writing=True)
            return
        with source.open("rb") as data, self._request("PUT", url, headers=headers, data=data) as response:
            self._check(response, f"blob {descriptor.digest}", writing=True)

    def fetch_blob(self, descriptor: Descriptor, write: Callable[[bytes], object]) -> None:
        """Stream one blob into ``write``, checking its size and digest as the bytes arrive.

        Raises ``DigestMismatch`` as soon as more bytes than announced arrive, or at the end when
        the size or digest differs; nothing written so far may be trusted then.
        """
        url = f"{self._base}/blobs/{descriptor.digest}"
        hasher = hashlib.sha256()
        received = 0
        with self._request("GET", url, stream=True) as response:
            self._check(response, f"blob {descriptor.digest}")
            for chunk in _chunks(response, descriptor.digest):
                received += len(chunk)
                if received > descriptor.size:
                    raise DigestMismatch(
                        f"blob {descriptor.digest} of {self.reference} is larger than its {descriptor.size} "
                        "bytes; refusing it"
                    )
                hasher.update(chunk)
                write(chunk)
        digest = "sha256:" + hasher.hexdigest()
        if received != descriptor.size or digest != descriptor.digest:
            raise DigestMismatch(
                f"blob {descriptor.digest} of {self.reference} arrived as {received} bytes with digest "
                f"{digest}; expected {descriptor.size} bytes. The registry's copy is corrupt or was "
                "tampered with; nothing was installed"
            )

    # -- transport -------------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        url: str,
        *,
        headers: dict[str, str] | None = None,
        data: bytes | BinaryIO | None = None,
        stream: bool = False,
    ) -> requests.Response:
        """Send once; on a 401 answer the challenge and send once more. A file body cannot be sent
        twice, so uploads are preceded by a body-less request that settles authentication."""
        response = self._send(method, url, headers, data, stream)
        if response.status_code not in (401, 403) or (data is not None and not isinstance(data, bytes)):
            return response
        if not self._authenticate(response):
            return response
        response.close()
        return self._send(method, url, headers, data, stream)

    def _send(
        self,
        method: str,
        url: str,
        headers: dict[str, str] | None,
        data: bytes | BinaryIO | None,
        stream: bool,
    ) -> requests.Response:
        import requests

        sent = dict(headers or {})
        if self._authorization:
            sent["Authorization"] = self._authorization
        try:
            return self._registry.session.request(  # type: ignore[no-any-return]
                method,
                url,
                headers=sent,
                data=data,
                stream=stream,
                timeout=self._timeout,
                allow_redirects=True,
            )
        except requests.exceptions.SSLError as error:
            raise RegistryUnreachable(
                f"TLS with {self.reference.registry} failed ({type(error).__name__}); for a registry "
                "without HTTPS pass --insecure"
            ) from None
        except requests.exceptions.RequestException as error:
            raise RegistryUnreachable(
                f"cannot reach the registry {self.reference.registry} ({type(error).__name__}); check the "
                "host and port, and that it is running"
            ) from None

    def _authenticate(self, response: requests.Response) -> bool:
        """Answer a challenge: Basic with the credentials, Bearer through oras-py's token flow."""
        challenge = response.headers.get("WWW-Authenticate", "")
        scheme = challenge.split(" ", 1)[0].lower()
        if scheme == "basic" and self._credentials is not None:
            pair = f"{self._credentials.username}:{self._credentials.password}".encode()
            self._authorization = "Basic " + base64.b64encode(pair).decode("ascii")
            return True
        if scheme == "bearer":
            import requests

            try:
                headers, changed = self._registry.auth.authenticate_request(response, {}, refresh=True)
            except (requests.exceptions.RequestException, ValueError):
                raise RegistryUnreachable(
                    f"the token service of {self.reference.registry} did not answer"
                ) from None
            if changed and headers.get("Authorization"):
                self._authorization = str(headers["Authorization"])
                return True
        return False

    def _check(self, response: requests.Response, what: str, *, writing: bool = False) -> None:
        status = response.status_code
        if status < 300:
            return
        where = f"{self.reference.registry}/{self.reference.repository}"
        if status in (401, 403):
            tried = self._credentials.describe() if self._credentials else "no credentials (anonymous)"
            action = "write to" if writing else "read"
            raise RegistryUnauthorized(
                f"{where} refused to let {tried} {action} {what} (HTTP {status}). Check the credentials, "
                "or give others: --username with --password-stdin, DOCS_MCP_REGISTRY_USERNAME/_PASSWORD, "
                "or docker login"
            )
        if status == 404:
            raise ReferenceNotFound(
                f"{where} has no {what} (HTTP 404): check the repository name, tag or digest"
            )
        if status >= 500:
            raise RegistryUnreachable(f"{where} failed on {what} (HTTP {status}); try again later")
        raise RegistryError(f"{where} rejected {what} (HTTP {status}): {_error_text(response)}")


def _chunks(response: requests.Response, digest: str) -> Iterator[bytes]:
    import requests

    try:
        yield from response.iter_content(chunk_size=_CHUNK)
    except requests.exceptions.RequestException as error:
        raise RegistryUnreachable(
            f"the download of blob {digest} broke off ({type(error).__name__}); nothing was installed"
        ) from None


def _read_capped(response: requests.Response, limit: int, what: str) -> bytes:
    body = bytearray()
    for chunk in _chunks(response, what):
        body += chunk
        if len(body) > limit:
            raise RegistryError(f"{what} is larger than {limit} bytes; refusing it")
    return bytes(body)


def _error_text(response: requests.Response) -> str:
    """The registry's own error messages (OCI error JSON), short; its raw text otherwise."""
    try:
        errors = response.json().get("errors", [])
        text = "; ".join(str(e.get("message") or e.get("code")) for e in errors if isinstance(e, dict))
    except ValueError:
        text = response.text
    return (text or response.reason or "no details")[:300]
