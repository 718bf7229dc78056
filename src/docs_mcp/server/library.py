"""What ``serve --index`` names: the libraries (and versions) one server serves, each its own index.

``--index REF`` (a folder or ``oci://REF``) serves one index exactly as a single-index server does.
``--index NAME=REF`` (repeatable; ``DOCS_MCP_INDEX`` takes a comma-separated list) serves several,
each under its library ``NAME``; ``NAME@VERSION=REF`` serves one version of a library. Without
``@VERSION`` the version is the one the index declares (``docs-mcp build --version``), if any.

Several versions of one library: the one used when a call gives no ``version`` (its *latest*) is the
one marked ``NAME@VERSION!=REF`` (``!`` after the version), else the highest version in version order
(numbers compared as numbers: ``2.10`` > ``2.9`` > ``v1``).

Imports nothing heavy: the CLI parses specs before the server stack is imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docs_mcp.errors import ConfigError

__all__ = ["LibrarySpec", "parse_index_specs", "version_key"]

# Library names become enum values and URI segments: keep them plain.
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
# NAME, optional @VERSION with an optional latest marker, '=' then the reference.
_SPEC = re.compile(r"(?P<name>[^=@/:]+?)(?:@(?P<version>[^=!]*)(?P<latest>!)?)?=(?P<ref>.+)", re.DOTALL)


@dataclass(frozen=True)
class LibrarySpec:
    """One ``--index`` value: ``name`` is None for a bare ``REF`` (the single-index server)."""

    name: str | None
    reference: str
    version: str | None = None
    latest: bool = False

    def label(self) -> str:
        """``name`` or ``name@version``, as messages show it."""
        base = self.name or self.reference
        return f"{base}@{self.version}" if self.version else base


def parse_index_spec(text: str) -> LibrarySpec:
    """One ``--index`` value. Raises ``ConfigError`` naming the value and the accepted forms."""
    value = text.strip()
    if not value:
        raise ConfigError("--index is empty: give a folder, oci://REF, or NAME=REF")
    if value.startswith("oci://") or "=" not in value or Path(value).exists():
        return LibrarySpec(None, value)
    match = _SPEC.fullmatch(value)
    if match is None:
        raise ConfigError(f"--index {value!r} is not REF, NAME=REF or NAME@VERSION=REF")
    name, version = match["name"].strip(), match["version"]
    if not _NAME.fullmatch(name):
        raise ConfigError(
            f"--index {value!r}: library name {name!r} must be lower-case letters, digits, '.', '_' or '-' "
            "(starting with a letter or digit, at most 64 characters)"
        )
    if version is not None and not _VERSION.fullmatch(version):
        raise ConfigError(
            f"--index {value!r}: version {version!r} must be letters, digits, '.', '_', '+' or '-' "
            "(e.g. 2.1 or v3)"
        )
    if match["latest"] and version is None:
        raise ConfigError(f"--index {value!r}: '!' marks a version as latest: write NAME@VERSION!=REF")
    return LibrarySpec(name, match["ref"].strip(), version, bool(match["latest"]))


def parse_index_specs(values: Iterable[str]) -> list[LibrarySpec]:
    """Every ``--index`` value (a comma-separated ``DOCS_MCP_INDEX`` split first by the caller).

    Raises ``ConfigError`` for a malformed value, a bare ``REF`` among named ones, or two bare ones.
    """
    specs = [parse_index_spec(value) for value in values if value.strip()]
    if not specs:
        raise ConfigError("no --index given: give a folder, oci://REF, or NAME=REF (repeatable)")
    bare = [spec for spec in specs if spec.name is None]
    if bare and len(specs) > 1:
        raise ConfigError(
            f"--index {bare[0].reference!r} has no library name: when serving several indexes, name each "
            "one, e.g. --index docs=./out --index sdk=oci://registry/sdk:latest"
        )
    return specs


def version_key(version: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key of a version: runs of digits compare as numbers, other runs as text, a leading
    ``v`` is ignored (``v2.10`` > ``2.9``)."""
    parts = re.findall(r"\d+|[^\d.+_-]+", version.lower().removeprefix("v"))
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts)


def latest_version(versions: Sequence[str], marked: Sequence[str]) -> str:
    """The version used when none is asked for: the one marked, else the highest.

    Raises ``ConfigError`` when more than one is marked.
    """
    if len(marked) > 1:
        raise ConfigError(f"versions {', '.join(marked)} are all marked latest ('!'): mark one")
    if marked:
        return marked[0]
    return max(versions, key=version_key)
