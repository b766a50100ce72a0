"""Strava's quota headers: ``X-RateLimit-Limit: 200,2000`` and ``X-RateLimit-Usage:
12,300`` (15-minute and daily windows; the 15-minute one resets on the quarter hour,
the daily one at midnight UTC), plus ``X-ReadRateLimit-*`` for the read-only quota."""

from __future__ import annotations

import math
from collections.abc import Mapping

from .._ratelimit import RateLimitWindow, header_ints

_DAY = 86_400.0
_QUARTER = 900.0


def _windows(headers: Mapping[str, str], now: float, prefix: str) -> list[RateLimitWindow]:
    limits = header_ints(headers.get(f"{prefix}-limit"))
    usage = header_ints(headers.get(f"{prefix}-usage"))
    resets = (math.floor(now / _QUARTER + 1) * _QUARTER, math.floor(now / _DAY + 1) * _DAY)
    names = ("15min", "daily")
    return [
        RateLimitWindow(f"{prefix}:{names[i]}", limit, limit - used, resets[i])
        for i, (limit, used) in enumerate(zip(limits, usage, strict=False))
        if i < 2
    ]


def rate_limits(headers: Mapping[str, str], now: float) -> list[RateLimitWindow]:
    """The overall and the read quota's windows (header names lower-cased)."""
    return _windows(headers, now, "x-ratelimit") + _windows(headers, now, "x-readratelimit")
