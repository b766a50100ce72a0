"""Numbers read from other people's data: a provider's JSON, an export's CSV or JSON, a
device file's fields, a workout someone wrote. One rule for all of them: a real, finite
number or nothing. A boolean is not a number (``True`` is an ``int`` to Python, and a
flag is not a figure); NaN and infinities are nothing (one of them in a sum makes every
figure after it NaN, and JSON cannot carry them).
"""

from __future__ import annotations

import math
from typing import Any


def number(value: Any, *, text: bool = False) -> float | None:
    """``value`` as a finite float, or None. ``text``: a string holding a number counts
    too (Google's APIs send int64 as strings; exports are text)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        found = float(value)
    elif text and isinstance(value, str):
        try:
            found = float(value)
        except ValueError:
            return None
    else:
        return None
    return found if math.isfinite(found) else None


__all__ = ["number"]
