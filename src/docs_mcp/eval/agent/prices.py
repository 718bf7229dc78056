"""What a model's tokens cost: a small table of list prices (``prices.json``, data, not code),
extended or overridden by the user's own file of the same shape."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from docs_mcp.errors import ConfigError
from docs_mcp.limits import loads_json

__all__ = ["Price", "load_prices"]


@dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        """The dollars ``input_tokens`` and ``output_tokens`` cost."""
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


def load_prices(extra: Path | None = None) -> dict[str, Price]:
    """The shipped price table, with ``extra``'s entries added over it.

    Raises ``ConfigError`` for an unreadable or malformed ``extra``.
    """
    shipped = json.loads(resources.files("docs_mcp.eval.agent").joinpath("prices.json").read_text("utf-8"))
    prices = _parse(shipped, "prices.json")
    if extra is not None:
        try:
            given = loads_json(extra.read_text(encoding="utf-8"))  # depth-bounded: no RecursionError
        except (OSError, ValueError) as error:
            raise ConfigError(f"cannot read the price file {extra}: {error}") from None
        prices.update(_parse(given, str(extra)))
    return prices


def _parse(data: Any, source: str) -> dict[str, Price]:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a price file is a JSON object of model -> {{input, output}}")
    prices: dict[str, Price] = {}
    for model, entry in data.items():
        if model.startswith("_"):
            continue
        try:
            prices[model] = Price(_dollars(entry["input"]), _dollars(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise ConfigError(
                f"{source}: {model!r} needs numbers 'input' and 'output' "
                "(dollars per million tokens, at least 0)"
            ) from None
    return prices


def _dollars(value: object) -> float:
    """A price: a finite number of at least 0. JSON's NaN and Infinity (and 1e999) parse to floats,
    and a NaN cost never passes a budget, so a run would spend without a stop."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{value!r} is not a price")
    return float(value)
