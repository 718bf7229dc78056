"""Players for ``testkit.model_wire``: who decides the model's turns.

- ``Scripted``: the prompt names a script (``[script:NAME]``); turn N plays step N (the last step
  repeats, so a one-step script of tool calls never stops). A step may fail its first requests with
  an HTTP status and ``Retry-After``. ``$first_hit`` in arguments is the first chunk id of the latest
  ``search_docs`` result.
- ``DocsReader``: a deterministic stand-in for a model that uses the docs: it searches (when
  ``search_docs`` is offered), reads the top hits with ``get_doc``, writes the code blocks of the
  file's language it found to the file the prompt names, and answers. Without the server it writes
  a guess. The figures of the shipped suite against it measure the pipeline, not a model.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from testkit.model_wire import Fail, Reply, Seen

__all__ = ["DocsReader", "Scripted", "first_hit"]

_SCRIPT = re.compile(r"\[script:([\w-]+)\]")
_CHUNK_LINE = re.compile(r"^\s+(\S+#\S*) \|", re.MULTILINE)
_TARGET = re.compile(r"`([\w./-]+\.(py|ts|go))`")
_LANGUAGES = {"py": "python", "ts": "typescript", "go": "go"}
_FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def first_hit(results: Sequence[tuple[str, str, bool]]) -> str | None:
    """The first chunk id listed by the latest ``search_docs`` result."""
    for name, text, _ in reversed(results):
        if name == "search_docs":
            found = _CHUNK_LINE.search(text)
            return found.group(1) if found else None
    return None


class Scripted:
    """Plays ``scripts`` (name -> steps); each step a dict: ``{"say": TEXT}``, ``{"call": NAME,
    "args": {...} or "raw": "not json"}``, ``{"calls": [steps]}``; any step may add
    ``"fail": STATUS, "times": N, "retry_after": SECONDS`` to fail its first N requests."""

    def __init__(self, scripts: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        self.scripts = scripts
        self.failed: Counter[tuple[str, int, tuple[str, ...]]] = Counter()
        self._lock = threading.Lock()

    def play(self, seen: Seen) -> Reply | Fail:
        found = _SCRIPT.search(seen.prompt)
        if found is None or found.group(1) not in self.scripts:
            return Reply(text="no script named in the prompt")
        steps = self.scripts[found.group(1)]
        index = min(seen.turns, len(steps) - 1)
        step = steps[index]
        if "fail" in step:
            key = (found.group(1), index, tuple(sorted(seen.tools)))
            with self._lock:
                if self.failed[key] < int(step.get("times", 1)):
                    self.failed[key] += 1
                    return Fail(int(step["fail"]), step.get("retry_after"))
        calls = [self._call(one, seen) for one in step.get("calls", [step] if "call" in step else [])]
        return Reply(text=str(step.get("say", "")), calls=calls)

    @staticmethod
    def _call(step: Mapping[str, Any], seen: Seen) -> tuple[str, dict[str, Any] | str]:
        if "raw" in step:
            return step["call"], str(step["raw"])
        hit = first_hit(seen.results) or ""
        args = {key: (hit if value == "$first_hit" else value) for key, value in step.get("args", {}).items()}
        return step["call"], args


class DocsReader:
    """Search, read the top hits, write the code found, answer (see the module docstring)."""

    READ = 3  # hits read with get_doc

    def play(self, seen: Seen) -> Reply | Fail:
        target = _TARGET.search(seen.prompt)
        if target is None:
            return Reply(text="I need the name of the file to write, in backticks.")
        path, language = target.group(1), _LANGUAGES[target.group(2)]
        last = seen.last[0][0] if seen.last else None
        if last is None and "search_docs" in seen.tools:
            return Reply(calls=[("search_docs", self._search(seen, language))])
        if last == "search_docs":
            ids = _CHUNK_LINE.findall(seen.last[0][1])[: self.READ]
            if ids:
                return Reply(calls=[("get_doc", {"chunk_id": chunk}) for chunk in ids])
        if last in (None, "search_docs", "get_doc"):
            code = _code_blocks(seen.results, language) or _guess(language)
            return Reply(calls=[("write_file", {"path": path, "content": code})])
        written = next((text for name, text, _ in seen.results if name == "write_file"), "")
        return Reply(text=f"Done: {written}.")

    @staticmethod
    def _search(seen: Seen, language: str) -> dict[str, Any]:
        query = re.sub(r"`[^`]*`|\[script:[\w-]+\]", " ", seen.prompt)
        arguments: dict[str, Any] = {"query": " ".join(query.split())[:300], "limit": 5}
        enum = seen.tools["search_docs"].get("properties", {}).get("language", {}).get("enum", [])
        if language in enum:
            arguments["language"] = language
        return arguments


def _code_blocks(results: Sequence[tuple[str, str, bool]], language: str) -> str:
    blocks: list[str] = []
    for name, text, _ in results:
        if name != "get_doc":
            continue
        for tag, body in _FENCE.findall(text):
            if tag == language and body.strip() not in blocks:
                blocks.append(body.strip())
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _guess(language: str) -> str:
    """What a model writes from memory: plausible, and not this SDK's API."""
    if language == "python":
        return "import sdk\n\nclient = sdk.Client()\nresult = client.request('items')\nprint(result)\n"
    if language == "go":
        return 'package main\n\nfunc main() {\n\tclient := NewClient()\n\tclient.Do("items")\n}\n'
    return (
        'const client = new Client();\nconst result = await client.request("items");\nconsole.log(result);\n'
    )
