"""A user's price file is data checked at the edge: NaN, Infinity (JSON's own, or 1e999), a negative
price, a string, a bool or a nesting thousands deep is a ConfigError naming the file, never a price.
A NaN cost never passes a budget, so a run priced so would have spent without a stop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docs_mcp.errors import ConfigError
from docs_mcp.eval.agent.prices import Price, load_prices


@pytest.mark.parametrize(
    "text",
    ['{"m": {"input": NaN, "output": 1}}', '{"m": {"input": 1, "output": Infinity}}',
     '{"m": {"input": 1e999, "output": 1}}', '{"m": {"input": -1, "output": 1}}',
     '{"m": {"input": "nan", "output": 1}}', '{"m": {"input": true, "output": 1}}',
     '{"m": {"input": [1], "output": 1}}', "[" * 5000 + "]" * 5000],
)  # fmt: skip
def test_a_price_that_is_no_finite_amount_is_a_config_error_naming_the_file(
    tmp_path: Path, text: str
) -> None:
    given = tmp_path / "prices.json"
    given.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_prices(given)
    assert str(given) in str(refused.value) and len(str(refused.value)) < 300


def test_whole_and_fractional_prices_are_taken(tmp_path: Path) -> None:
    given = tmp_path / "prices.json"
    given.write_text(json.dumps({"m": {"input": 0, "output": 2.5}}))
    assert load_prices(given)["m"] == Price(0.0, 2.5)
