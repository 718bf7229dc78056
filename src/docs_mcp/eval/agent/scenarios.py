"""Scenario files: YAML read by the project's bounded safe reader, checked against
``schemas/agent-scenarios.schema.json``, every problem named by file and line.

A scenarios argument is one ``.yaml``/``.yml`` file or a folder of them (sorted, not recursive).
Each file holds ``scenarios: [...]``; ids are unique across all files.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, cast

import jsonschema
import yaml

from docs_mcp.errors import ConfigError
from docs_mcp.limits import MAX_FRONT_MATTER_BYTES
from docs_mcp.parse.safe_yaml import YamlProblem, load_yaml

__all__ = ["Assertion", "Limits", "Scenario", "load_scenarios", "scenario_schema"]

SCHEMA_RESOURCE = "schemas/agent-scenarios.schema.json"
DEFAULT_TURNS = 20
DEFAULT_SCRIPT_TIMEOUT_S = 120.0
# The bounded YAML reader's own limit (it was made for front matter): more scenarios go in more files.
MAX_SCENARIO_FILE_BYTES = MAX_FRONT_MATTER_BYTES

AssertionKind = Literal["answer_contains", "answer_not_contains", "answer_regex", "file", "script"]
_KINDS: tuple[AssertionKind, ...] = (
    "answer_contains",
    "answer_not_contains",
    "answer_regex",
    "file",
    "script",
)


@dataclass(frozen=True)
class Assertion:
    """One check on a finished run: ``kind`` and its ``value`` (text, pattern, path or command);
    a ``file`` check may also carry ``contains``, ``not_contains`` or ``regex``."""

    kind: AssertionKind
    value: str
    contains: str | None = None
    not_contains: str | None = None
    regex: str | None = None
    timeout: float = DEFAULT_SCRIPT_TIMEOUT_S
    soft: bool = False
    name: str = ""

    @property
    def label(self) -> str:
        """How the report names it: its ``name``, else a short description."""
        if self.name:
            return self.name
        if self.kind == "file":
            extra = [f"{key} {value!r}" for key, value in self._file_checks() if value is not None]
            return f"file {self.value}" + (" " + ", ".join(extra) if extra else " exists")
        return f"{self.kind.replace('_', ' ')} {self.value!r}"

    def _file_checks(self) -> list[tuple[str, str | None]]:
        return [("contains", self.contains), ("not contains", self.not_contains), ("regex", self.regex)]


@dataclass(frozen=True)
class Limits:
    """When a run stops if the model does not: model calls, total tokens, dollars (None: no limit)."""

    turns: int = DEFAULT_TURNS
    tokens: int | None = None
    budget: float | None = None


@dataclass(frozen=True)
class Scenario:
    """A task for the agent and how to judge it; ``source`` is ``file:line`` of its entry."""

    id: str
    prompt: str
    source: str
    category: str = "uncategorised"
    system: str | None = None
    files: Mapping[str, str] = field(default_factory=dict)
    setup: str | None = None
    limits: Limits = field(default_factory=Limits)
    expect: tuple[Assertion, ...] = ()
    digest: str = ""  # of the scenario's definition: a changed scenario is run again on resume


@cache
def scenario_schema() -> dict[str, Any]:
    """The scenario file JSON Schema shipped with the package (published at ``schemas/`` in the repo)."""
    text = resources.files("docs_mcp.eval.agent").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return cast(dict[str, Any], json.loads(text))


def load_scenarios(path: Path, only: Sequence[str] = ()) -> list[Scenario]:
    """The scenarios of the file ``path`` or of the ``.yaml``/``.yml`` files in the folder ``path``
    (those whose id is in ``only`` when it is given).

    Raises:
        ConfigError: a missing path, a file that is not valid YAML or does not fit the schema (each
            problem as ``file:line: field: what``), a bad regex, a duplicate id, an unknown id in ``only``.
    """
    files = _scenario_files(path)
    scenarios: list[Scenario] = []
    seen: dict[str, str] = {}
    for file in files:
        for scenario in _load_file(file):
            if scenario.id in seen:
                raise ConfigError(
                    f"{scenario.source}: scenario id {scenario.id!r} is already used at {seen[scenario.id]}"
                )
            seen[scenario.id] = scenario.source
            scenarios.append(scenario)
    if only:
        unknown = sorted(set(only) - set(seen))
        if unknown:
            raise ConfigError(
                f"no scenario {', '.join(map(repr, unknown))} in {path}; ids: {', '.join(seen)}"
            )
        scenarios = [scenario for scenario in scenarios if scenario.id in only]
    return scenarios


def _scenario_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
        if files:
            return files
        raise ConfigError(f"{path} holds no .yaml scenario files")
    raise ConfigError(f"no scenario file or folder at {path}")


def _load_file(file: Path) -> list[Scenario]:
    try:
        raw = file.read_bytes()
    except OSError as error:
        raise ConfigError(f"cannot read {file}: {error.strerror}") from error
    if len(raw) > MAX_SCENARIO_FILE_BYTES:
        raise ConfigError(
            f"{file}: {len(raw):,} bytes; a scenario file holds at most {MAX_SCENARIO_FILE_BYTES:,}: "
            "split it into several files in one folder and pass the folder"
        )
    try:
        data, root = load_yaml(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{file}: not UTF-8 text ({error.reason})") from error
    except YamlProblem as problem:
        # The reader words its messages for front matter; a scenario file is a whole document.
        message = problem.message.replace("front matter", "the file")
        raise ConfigError(f"{file}:{problem.line + 1}: {message}") from None
    problems = _schema_problems(data, root, file)
    if problems:
        raise ConfigError("; ".join(problems))
    return [
        _scenario(entry, file, _line_of(root, ["scenarios", i])) for i, entry in enumerate(data["scenarios"])
    ]


def _schema_problems(data: Any, root: yaml.Node | None, file: Path) -> list[str]:
    validator = jsonschema.Draft202012Validator(scenario_schema())
    problems: list[str] = []
    for error in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        where = _dotted(error.absolute_path) or "(file root)"
        message = error.message if len(error.message) <= 200 else error.message[:200] + "..."
        if error.validator == "oneOf":
            message = "an assertion needs exactly one of " + ", ".join(_KINDS)
        problems.append(f"{file}:{_line_of(root, list(error.absolute_path))}: {where}: {message}")
    if not problems:
        for i, entry in enumerate(data["scenarios"]):
            for j, check in enumerate(entry.get("expect", [])):
                for key in ("answer_regex", "regex"):
                    if key in check:
                        problems.extend(
                            _regex_problem(check[key], file, root, ["scenarios", i, "expect", j, key])
                        )
    return problems


def _regex_problem(pattern: str, file: Path, root: yaml.Node | None, path: list[Any]) -> list[str]:
    try:
        re.compile(pattern)
    except re.error as error:
        return [f"{file}:{_line_of(root, path)}: {_dotted(path)}: not a regular expression ({error})"]
    return []


def _dotted(path: Sequence[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _line_of(root: yaml.Node | None, path: Sequence[Any]) -> int:
    """The 1-based line of the value at ``path`` in the YAML tree (the deepest node found)."""
    node = root
    line = (node.start_mark.line + 1) if node is not None else 1
    for part in path:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if getattr(k, "value", None) == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node, line = child, child.start_mark.line + 1
    return line


def _scenario(entry: Mapping[str, Any], file: Path, line: int) -> Scenario:
    workspace = entry.get("workspace", {})
    limits = entry.get("limits", {})
    return Scenario(
        id=entry["id"],
        prompt=entry["prompt"],
        source=f"{file}:{line}",
        category=entry.get("category", "uncategorised"),
        system=entry.get("system"),
        files=dict(workspace.get("files", {})),
        setup=workspace.get("setup"),
        limits=Limits(limits.get("turns", DEFAULT_TURNS), limits.get("tokens"), limits.get("budget")),
        expect=tuple(_assertion(check) for check in entry.get("expect", [])),
        digest=hashlib.sha256(json.dumps(entry, sort_keys=True).encode()).hexdigest()[:16],
    )


def _assertion(check: Mapping[str, Any]) -> Assertion:
    kind = next(kind for kind in _KINDS if kind in check)
    return Assertion(
        kind=kind,
        value=str(check[kind]),
        contains=check.get("contains"),
        not_contains=check.get("not_contains"),
        regex=check.get("regex"),
        timeout=float(check.get("timeout", DEFAULT_SCRIPT_TIMEOUT_S)),
        soft=bool(check.get("soft", False)),
        name=str(check.get("name", "")),
    )
