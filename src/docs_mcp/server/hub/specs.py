"""What ``serve --index`` names: the libraries (and versions) one server serves, each its own index.

``--index REF`` (a folder or ``oci://REF``) serves one index exactly as a single-index server does.
``--index NAME=REF`` (repeatable; ``DOCS_MCP_INDEX`` takes a comma-separated list) serves several,
each under its library ``NAME``; ``NAME@VERSION=REF`` serves one version of a library. Without
``@VERSION`` the version is the one the index declares (``docs-mcp build --version``), if any.

Several versions of one library: the one used when a call gives no ``version`` (its *latest*) is the
one marked ``NAME@VERSION!=REF`` (``!`` after the version), else the highest version in version order
(numbers compared as numbers: ``2.10`` > ``2.9`` > ``v1``).

Each ``oci://`` tag can be followed at its own pace: ``--refresh-interval SECONDS`` polls every tag,
``--refresh-interval NAME=SECONDS`` (repeatable, ``NAME@VERSION`` as written in ``--index``) one
library's; ``DOCS_MCP_REFRESH_INTERVAL`` takes both, comma-separated (``300,sdk=30``).

Imports nothing heavy: the CLI parses specs before the server stack is imported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docs_mcp.errors import ConfigError
from docs_mcp.server.startup.options import OCI_SCHEME, REFRESH_INTERVAL_RANGE, refresh_interval_allowed

__all__ = [
    "RESERVED_FACETS",
    "LibrarySpec",
    "RefreshIntervals",
    "check_facet_names",
    "parse_index_specs",
    "parse_refresh_intervals",
    "version_key",
]

# The hub's own search_docs arguments: a served index's facet of that name would be shadowed.
RESERVED_FACETS = ("library", "version")


# Library names become enum values and URI segments: keep them plain.
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_VERSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
# NAME, optional @VERSION with an optional latest marker, '=' then the reference.
_SPEC = re.compile(r"(?P<name>[^=@/:]+?)(?:@(?P<version>[^=!]*)(?P<latest>!)?)?=(?P<ref>.+)", re.DOTALL)
_REFRESH_KEY = re.compile(rf"{_NAME.pattern}(?:@{_VERSION.pattern})?")


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
    if value.startswith("oci://") or "=" not in value or _is_path(value):
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


def _is_path(value: str) -> bool:
    """Whether ``value`` names something on disk (a folder whose name holds '='); a value the
    system cannot even look up (a name over 255 bytes) is not one."""
    try:
        return Path(value).exists()
    except (OSError, ValueError):
        return False


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


def version_key(version: str) -> tuple[tuple[int, int, str], ...]:
    """Sort key of a version: runs of digits compare as numbers, other runs as text, a leading
    ``v`` is ignored (``v2.10`` > ``2.9``).

    Digit runs are ASCII and compared by length then text (leading zeros dropped), never through
    int(): a version from an index manifest is data, and "1²" (isdigit() but no int) or thousands of
    digits (past int()'s limit) raised ValueError while the server started."""
    key = []
    for part in re.findall(r"[0-9]+|[^0-9.+_-]+", version.lower().removeprefix("v")):
        if part.isascii() and part.isdigit():
            digits = part.lstrip("0") or "0"
            key.append((0, len(digits), digits))
        else:
            key.append((1, 0, part))
    return tuple(key)


def latest_version(versions: Sequence[str], marked: Sequence[str]) -> str:
    """The version used when none is asked for: the one marked, else the highest.

    Raises ``ConfigError`` when more than one is marked.
    """
    if len(marked) > 1:
        raise ConfigError(f"versions {', '.join(marked)} are all marked latest ('!'): mark one")
    if marked:
        return marked[0]
    return max(versions, key=version_key)


@dataclass(frozen=True)
class RefreshIntervals:
    """How often ``oci://`` tags are polled: ``every_tag`` (None: not followed) unless ``by_library``
    names the library (``NAME``, or ``NAME@VERSION`` as written in ``--index``)."""

    every_tag: float | None = None
    by_library: Mapping[str, float] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.every_tag is not None or bool(self.by_library)

    def for_spec(self, spec: LibrarySpec) -> float | None:
        """The interval of ``spec``'s tag: its own (``NAME@VERSION`` before ``NAME``), else every tag's."""
        for key in (spec.label(), spec.name):
            if key is not None and key in self.by_library:
                return self.by_library[key]
        return self.every_tag

    def check(self, specs: Sequence[LibrarySpec]) -> None:
        """Raises ``ConfigError`` for a name no ``--index`` serves or one that is not a registry tag."""
        named = [spec for spec in specs if spec.name is not None]
        if self.by_library and not named:
            key = next(iter(self.by_library))
            raise ConfigError(
                f"--refresh-interval {key}={self.by_library[key]:g} names a library, but --index serves one "
                "unnamed index: give --refresh-interval SECONDS"
            )
        known = {key for spec in named for key in (spec.name, spec.label())}
        for key in self.by_library:
            if key not in known:
                raise ConfigError(
                    f"--refresh-interval {key}=...: no --index is named {key!r} "
                    f"(served: {', '.join(sorted(str(k) for k in known))})"
                )
            folders = [
                s for s in named if key in (s.name, s.label()) and not s.reference.startswith(OCI_SCHEME)
            ]
            if folders:
                raise ConfigError(
                    f"--refresh-interval {key}=...: {key} is the folder {folders[0].reference} (watched for "
                    "rebuilds); --refresh-interval follows oci:// tags"
                )


def parse_refresh_intervals(values: Iterable[str]) -> RefreshIntervals:
    """``--refresh-interval`` values (each ``SECONDS`` or ``NAME=SECONDS``, commas allowed in one).

    Raises ``ConfigError`` naming the value: not a number of seconds from 0.1 to a week, a malformed
    name, or the same library (or the bare default) given twice.
    """
    every_tag: float | None = None
    by_library: dict[str, float] = {}
    for item in (part.strip() for value in values for part in value.split(",")):
        if not item:
            continue
        key, _, text = item.rpartition("=")
        key = key.strip()
        if key and not _REFRESH_KEY.fullmatch(key):
            raise ConfigError(
                f"--refresh-interval {item!r}: {key!r} is not a library name "
                "(NAME or NAME@VERSION as in --index)"
            )
        seconds = _seconds(text.strip(), item)
        if key in by_library or (not key and every_tag is not None):
            raise ConfigError(
                f"--refresh-interval {item!r}: {key or 'the interval of every tag'} is given twice"
            )
        if key:
            by_library[key] = seconds
        else:
            every_tag = seconds
    return RefreshIntervals(every_tag, by_library)


def _seconds(text: str, item: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not refresh_interval_allowed(seconds):  # nan and inf are floats too
        raise ConfigError(
            f"{item!r} is not a number of seconds {REFRESH_INTERVAL_RANGE}, or NAME=SECONDS for one library"
        )
    return seconds


def check_facet_names(label: str, facets: Iterable[str]) -> None:
    """Raises ``ConfigError`` when index ``label`` has a facet the hub's own arguments would shadow."""
    for facet in facets:
        if facet in RESERVED_FACETS:
            raise ConfigError(
                f"--index {label}: the index has a facet named {facet!r}, which search_docs uses for its own "
                f"{facet!r} argument when serving several indexes; rename the facet in its docs and rebuild"
            )
