"""Fitbit's quota headers: ``fitbit-rate-limit-limit``, ``-remaining`` and ``-reset``
(seconds until the hourly window of the user resets)."""

from __future__ import annotations

from collections.abc import Mapping

from .._ratelimit import RateLimitWindow, windows_from


def rate_limits(headers: Mapping[str, str], now: float) -> list[RateLimitWindow]:
    return windows_from(headers, now, "fitbit-rate-limit", reset_is_delta=True)
