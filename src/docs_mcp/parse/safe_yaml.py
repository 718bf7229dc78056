"""YAML front matter loaded within bounds: every failure is a ``YamlProblem`` with a line, never a
traceback, a hang or a memory blow-up.

PyYAML's safe loader still fails in ways its ``YAMLError`` does not cover: values its constructors
cannot build (``date: 2024-02-30``, ``!!int "abc"``) raise ``ValueError``; nesting a few thousand
levels deep exhausts the recursion limit; and a few hundred bytes of nested aliases ("billion
laughs") stand for billions of values, which anything walking or printing the result then expands.
So the event stream is scanned first, in one linear pass that counts nesting depth and values with
aliases expanded (``docs_mcp.limits``), and the document is built only when it is within bounds.
"""

from __future__ import annotations

from typing import Any

import yaml

from docs_mcp.limits import MAX_FRONT_MATTER_BYTES, MAX_FRONT_MATTER_DEPTH, MAX_FRONT_MATTER_VALUES
from docs_mcp.parse.reporter import brief

__all__ = ["YamlProblem", "load_yaml"]


class YamlProblem(Exception):
    """Why the YAML cannot be used; ``line`` is 0-based within the YAML text."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


# libyaml's parser where PyYAML was built with it (its wheels are): the pure-Python scanner spends
# time quadratic in the flow nesting within its 1,024-character look-ahead (1.3 s for a line of
# "{{{{..."), libyaml a millisecond.
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ValueProblem(yaml.constructor.ConstructorError):
    """A scalar the safe constructor cannot build (``2024-02-30`` as a date)."""


class _Loader(_SafeLoader):  # type: ignore[valid-type,misc]
    """The safe loader, with a constructor failure turned into a ``_ValueProblem`` at its node."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, OverflowError, TypeError) as error:
            kind = str(node.tag).rpartition(":")[2] or "value"
            raise _ValueProblem(
                None,
                None,
                f"{brief(node.value)} is not a valid {kind} ({error}); quote it to keep it as text",
                node.start_mark,
            ) from None


def load_yaml(text: str) -> tuple[Any, yaml.Node | None]:
    """The data and the root node of the YAML document ``text`` (``(None, None)`` when empty).

    Raises:
        YamlProblem: the text is not YAML, holds a value that cannot be built, or exceeds a limit
            (size, nesting depth, values after alias expansion).
    """
    size = len(text.encode("utf-8"))
    if size > MAX_FRONT_MATTER_BYTES:
        raise YamlProblem(
            f"front matter is {size:,} bytes; at most {MAX_FRONT_MATTER_BYTES:,} "
            "(MAX_FRONT_MATTER_BYTES): move long text into the page",
            0,
        )
    try:
        _check_shape(text)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            return (loader.construct_document(node) if node is not None else None), node
        finally:
            loader.dispose()
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position)
        raise YamlProblem(
            f"character U+{error.character:04X} is not allowed in YAML; remove it", line
        ) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        problem = error.problem or error.context or "invalid YAML"
        if "maximum nesting depth" in problem:  # libyaml's own bound (1,000 levels)
            problem = _too_deep()
        elif not isinstance(error, _ValueProblem):
            problem = f"front matter is not valid YAML: {problem}"
        raise YamlProblem(problem, mark.line if mark else 0) from None
    except yaml.YAMLError as error:
        raise YamlProblem(f"front matter is not valid YAML: {brief(str(error))}", 0) from None


def _line(event: yaml.Event) -> int:
    return event.start_mark.line if event.start_mark is not None else 0


def _too_deep() -> str:
    limit = MAX_FRONT_MATTER_DEPTH
    return f"front matter nests more than {limit} levels deep (MAX_FRONT_MATTER_DEPTH); flatten it"


def _check_shape(text: str) -> None:
    """Raise ``YamlProblem`` when the document nests deeper than ``MAX_FRONT_MATTER_DEPTH`` or stands
    for more than ``MAX_FRONT_MATTER_VALUES`` values once aliases are expanded, or an alias refers to
    the collection it is in (a cycle). Scanning and parsing errors propagate as ``YAMLError``."""
    depth = 0
    values = 0
    open_anchors: list[tuple[str | None, int]] = []  # per open collection: its anchor, values before it
    sizes: dict[str, int] = {}  # anchor -> values it stands for
    for event in yaml.parse(text, Loader=_SafeLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_FRONT_MATTER_DEPTH:
                raise YamlProblem(_too_deep(), _line(event))
            open_anchors.append((event.anchor, values))
            values += 1
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
            anchor, before = open_anchors.pop()
            if anchor is not None:
                sizes[anchor] = values - before
        elif isinstance(event, yaml.ScalarEvent):
            values += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
        elif isinstance(event, yaml.AliasEvent):
            if any(anchor == event.anchor for anchor, _ in open_anchors):
                raise YamlProblem(
                    f"alias *{event.anchor} refers to the collection that contains it; remove the cycle",
                    _line(event),
                )
            values += sizes.get(event.anchor or "", 0)  # an unknown anchor is the composer's error
        if values > MAX_FRONT_MATTER_VALUES:
            raise YamlProblem(
                f"front matter stands for more than {MAX_FRONT_MATTER_VALUES:,} values once its aliases "
                "are expanded (MAX_FRONT_MATTER_VALUES); write the values out instead of nesting aliases",
                _line(event),
            )
