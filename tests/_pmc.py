"""The tests' one plain reference for CTL / ATL / TSB: Coggan's exponentially weighted
averages computed day by day in Python (no numpy, nothing of the engine's), from zero
(or given start values) before the first day. Tests hold the engine, the tools and the
HTTP twins to it."""

from __future__ import annotations

import math
from collections.abc import Iterable


def plain_pmc(loads: Iterable[float], ctl_days: float = 42.0, atl_days: float = 7.0,
              ctl0: float = 0.0, atl0: float = 0.0) -> list[tuple[float, float, float]]:
    """Per day: (CTL, ATL) after the day's load, and TSB going into the day; ``ctl0`` and
    ``atl0`` are the values before the first day."""
    kc, ka = math.exp(-1 / ctl_days), math.exp(-1 / atl_days)
    ctl, atl = ctl0, atl0
    out = []
    for x in loads:
        tsb = ctl - atl
        ctl, atl = ctl * kc + x * (1 - kc), atl * ka + x * (1 - ka)
        out.append((ctl, atl, tsb))
    return out


__all__ = ["plain_pmc"]
