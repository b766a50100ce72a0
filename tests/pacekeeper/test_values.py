"""One rule for a number read from other people's data (pacekeeper.values): a finite
float or nothing; booleans are flags, not figures; text only where the source is text."""

from __future__ import annotations

import math

import pytest

from pacekeeper.values import number


@pytest.mark.parametrize(("value", "expected"), [
    (3, 3.0), (2.5, 2.5), (-0.0, 0.0), (10**20, 1e20),
    (True, None), (False, None), (None, None), ([1], None), ({"v": 1}, None),
    (math.nan, None), (math.inf, None), (-math.inf, None),
    ("42", None),  # text is not read unless the source is text
])
def test_a_finite_number_or_nothing(value: object, expected: float | None) -> None:
    assert number(value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    ("42", 42.0), (" 7.5 ", 7.5), ("1e3", 1000.0), ("-3", -3.0),
    ("NaN", None), ("inf", None), ("-Infinity", None), ("", None), ("12 kg", None),
    ("true", None), (True, None), (4, 4.0),
])
def test_text_holding_a_number(value: object, expected: float | None) -> None:
    assert number(value, text=True) == expected
