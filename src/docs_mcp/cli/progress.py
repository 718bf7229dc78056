"""The build's progress on standard error, for a person at a terminal or reading a log.

On a terminal: a tqdm bar per running stage (files read, chunks embedded) that fits the width,
with its rate and ETA, and is cleared when the stage ends; what a stage found stays as one line
(``chunks: 70 from 13 files``, ``embedding: 0 to embed, 70 cached``). Off a terminal (CI logs):
the same lines, plus one every ``interval`` seconds while a stage runs, with its count, rate and
ETA; never a bar.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from docs_mcp.indexing.pipeline import BuildProgress

__all__ = ["BuildProgressPrinter"]

# Stages that run for a while and count as they go; the others are one report each.
_RUNNING = {"files": "files", "embedding": "chunks"}  # stage -> unit
LOG_INTERVAL = 5.0  # seconds between lines while a stage runs, off a terminal


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def line(event: BuildProgress) -> str:
    """``stage: count detail``; the count is ``done/total`` while a stage runs, one number once done,
    and left out when there is none yet (``writing``); the first report of ``embedding`` is its
    detail alone (``embedding: 0 to embed, 70 cached (model)``)."""
    if event.stage == "embedding" and event.done == 0:
        return f"embedding: {event.detail}"
    if event.total is None:
        count = str(event.done) if event.done else ""
    elif event.done >= event.total:
        count = str(event.total)
    else:
        count = f"{event.done}/{event.total}"
    return " ".join(part for part in (f"{event.stage}:", count, event.detail) if part)


class BuildProgressPrinter:
    """Call it with each :class:`~docs_mcp.indexing.pipeline.BuildProgress` of a build."""

    def __init__(
        self, stream: TextIO, *, interval: float = LOG_INTERVAL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.interval = interval
        self.clock = clock
        self._stage: str | None = None
        self._last: BuildProgress | None = None
        self._started = 0.0
        self._logged = 0.0
        self._bar: Any = None  # a tqdm bar on a terminal

    def __call__(self, event: BuildProgress) -> None:
        if event.stage != self._stage:
            self._end_stage()
            self._stage, self._started, self._logged = event.stage, self.clock(), self.clock()
            if event.stage not in _RUNNING or event.stage == "embedding":
                self._write(line(event))  # what the stage is about ("70 to embed, 0 cached")
        self._last = event
        if event.stage in _RUNNING and self.tty:
            self._bar_update(event)
        elif event.stage in _RUNNING:
            self._log_update(event)
        self.stream.flush()

    def close(self) -> None:
        """End the last stage (the build returned or failed)."""
        self._end_stage()
        self.stream.flush()

    def _end_stage(self) -> None:
        last, self._last = self._last, None
        if self._bar is not None:
            self._bar.close()  # leave=False: the bar's line is cleared
            self._bar = None
        if last is None or last.stage not in _RUNNING or (last.stage == "embedding" and not last.total):
            return
        elapsed = self.clock() - self._started
        rate = f" in {_duration(elapsed)} ({last.done / elapsed:.0f}/s)" if elapsed >= 1 and last.done else ""
        self._write(
            f"{line(last)}{rate}" if last.stage == "files" else f"embedding: {last.done} embedded{rate}"
        )

    def _log_update(self, event: BuildProgress) -> None:
        now = self.clock()
        if now - self._logged < self.interval or (event.total is not None and event.done >= event.total):
            return
        self._logged = now
        elapsed = now - self._started
        rate = event.done / elapsed if elapsed > 0 else 0.0
        parts = [f"{event.stage}: {event.done}" + (f"/{event.total}" if event.total is not None else "")]
        parts.append(f"{rate:.0f} {_RUNNING[event.stage]}/s")
        if event.total is not None and rate > 0:
            parts.append(f"ETA {_duration((event.total - event.done) / rate)}")
        self._write(", ".join(parts))

    def _bar_update(self, event: BuildProgress) -> None:
        if event.stage == "embedding" and not event.total:
            return  # nothing to embed: no bar
        if self._bar is None:
            from tqdm import tqdm  # only on a terminal

            self._bar = tqdm(
                total=event.total,
                desc=event.stage,
                unit=f" {_RUNNING[event.stage]}",
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} {rate_fmt} ETA {remaining}"
                if event.total is not None
                else "{desc}: {n_fmt} {rate_fmt}",
                file=self.stream,
                ncols=shutil.get_terminal_size().columns,
                leave=False,
                mininterval=0.1,
                smoothing=0.3,
            )
        self._bar.update(event.done - self._bar.n)

    def _write(self, text: str) -> None:
        if self._bar is not None:
            self._bar.write(text, file=self.stream)  # above the bar, which is drawn again below
        else:
            self.stream.write(text + "\n")
