"""The scenario folder the agent works in, and the three tools it gets on it (``read_file``,
``write_file``, ``list_files``), confined to that folder: a path that leaves it (``..``, an absolute
path, a symbolic link pointing out) is refused with an error the model reads, never followed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError

__all__ = ["WORKSPACE_TOOLS", "ToolSpec", "Workspace", "WorkspaceRefused", "shell_env"]

SETUP_TIMEOUT_S = 300.0
MAX_READ_CHARS = 100_000
MAX_WRITE_CHARS = 1_000_000
MAX_LISTED = 500


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it: name, description, JSON Schema of its arguments."""

    name: str
    description: str
    parameters: Mapping[str, Any]


def _path_schema(description: str) -> dict[str, Any]:
    return {"type": "string", "description": description}


WORKSPACE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "read_file",
        "Read a text file of the working folder.",
        {"type": "object", "properties": {"path": _path_schema("relative path")}, "required": ["path"]},
    ),
    ToolSpec(
        "write_file",
        "Create or replace a text file in the working folder (folders are created).",
        {
            "type": "object",
            "properties": {"path": _path_schema("relative path"), "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
    ToolSpec(
        "list_files",
        "List the files of the working folder (or of one of its sub-folders).",
        {"type": "object", "properties": {"path": _path_schema("relative folder; default the root")}},
    ),
)


def shell_env() -> dict[str, str]:
    """The environment of set-up commands and scripts: ours, with this Python's folder first on PATH
    so that ``python`` is the interpreter running docs-mcp (a virtual environment need not be active)."""
    folder = os.path.dirname(sys.executable)
    return {**os.environ, "PATH": folder + os.pathsep + os.environ.get("PATH", "")}


class WorkspaceRefused(Exception):
    """A workspace tool call that cannot be done; the message goes back to the model."""


class Workspace:
    """The folder ``root`` of one scenario run."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def prepare(self, files: Mapping[str, str], setup: str | None, source: str) -> None:
        """Write ``files`` and run the shell command ``setup`` in the folder.

        Raises ``ConfigError`` naming ``source`` for a path that leaves the folder or a setup command
        that fails (with the end of its output).
        """
        for relative, text in files.items():
            try:
                target = self.resolve(relative)
            except WorkspaceRefused as refused:
                raise ConfigError(f"{source}: workspace.files: {refused}") from None
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
            except OSError as error:
                raise ConfigError(
                    f"{source}: workspace.files: cannot write {relative!r}: {error.strerror}"
                ) from None
        if setup is None:
            return
        try:
            done = subprocess.run(
                setup,
                shell=True,
                cwd=self.root,
                capture_output=True,
                text=True,
                timeout=SETUP_TIMEOUT_S,
                env=shell_env(),
            )
        except subprocess.TimeoutExpired:
            raise ConfigError(f"{source}: workspace.setup ran past {SETUP_TIMEOUT_S:.0f} s") from None
        if done.returncode != 0:
            said = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise ConfigError(
                f"{source}: workspace.setup exited {done.returncode}: {' / '.join(said) or 'no output'}"
            )

    def resolve(self, relative: str) -> Path:
        """The path ``relative`` inside the folder; raises ``WorkspaceRefused`` if it leads out."""
        if not relative or "\x00" in relative:
            raise WorkspaceRefused("a non-empty relative path is needed")
        if os.path.isabs(relative):
            raise WorkspaceRefused(f"{relative!r} is absolute: paths are relative to the working folder")
        target = (self.root / relative).resolve()
        if target != self.root and not target.is_relative_to(self.root):
            raise WorkspaceRefused(f"{relative!r} is outside the working folder")
        return target

    def call(self, name: str, arguments: Mapping[str, Any]) -> str:
        """Run workspace tool ``name``; raises ``WorkspaceRefused`` with what to tell the model."""
        if name == "read_file":
            return self._read(_text_argument(arguments, "path"))
        if name == "write_file":
            return self._write(_text_argument(arguments, "path"), _text_argument(arguments, "content"))
        if name == "list_files":
            return self._list(str(arguments.get("path") or "."))
        raise WorkspaceRefused(f"no workspace tool {name!r}")

    def _read(self, relative: str) -> str:
        target = self.resolve(relative)
        if not target.is_file():
            raise WorkspaceRefused(f"no file {relative!r}; list_files shows what there is")
        try:
            text = target.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise WorkspaceRefused(f"{relative!r} is not UTF-8 text") from None
        return text if len(text) <= MAX_READ_CHARS else text[:MAX_READ_CHARS] + "\n[... cut]"

    def _write(self, relative: str, content: str) -> str:
        if len(content) > MAX_WRITE_CHARS:
            raise WorkspaceRefused(f"content is {len(content):,} characters; at most {MAX_WRITE_CHARS:,}")
        target = self.resolve(relative)
        if target == self.root or target.is_dir():
            raise WorkspaceRefused(f"{relative!r} is a folder")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        except OSError as error:  # a file where a folder should be, a full disk: the model hears why
            raise WorkspaceRefused(f"cannot write {relative!r}: {error.strerror}") from None
        return f"wrote {relative} ({len(content)} characters)"

    def _list(self, relative: str) -> str:
        folder = self.resolve(relative) if relative not in ("", ".") else self.root
        if not folder.is_dir():
            raise WorkspaceRefused(f"no folder {relative!r}")
        found = sorted(str(path.relative_to(self.root)) for path in folder.rglob("*") if path.is_file())
        shown = found[:MAX_LISTED]
        more = f"\n[... {len(found) - MAX_LISTED} more]" if len(found) > MAX_LISTED else ""
        return ("\n".join(shown) or "(no files)") + more


def _text_argument(arguments: Mapping[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str):
        raise WorkspaceRefused(f"argument {key!r} must be a string")
    return value
