"""The rolling 30-day quota window over per-day buckets, and its decision (KEY-6).

Days are whole UTC days since the Unix epoch; the window is today and the 29 days
before it. When the quota is spent, the next request can pass at the first midnight at
which enough old buckets have left the window: that is `Retry-After`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from pacekeeper.apikeys._tiers import QUOTA_WINDOW_DAYS

DAY_SECONDS = 86_400


# Not frozen: one is built per key request, and a frozen dataclass's __init__ costs
# about four times as much (an object.__setattr__ call per field). Treat it as a value.
@dataclass(slots=True)
class QuotaDecision:
    allowed: bool
    limit: int | None  # None: unlimited (enterprise)
    used: int  # requests counted in the window, this one included when allowed
    reset_at: int  # Unix time at which the oldest counted day leaves the window
    retry_after: int  # seconds until a request can pass again (0 when allowed)

    @property
    def remaining(self) -> int | None:
        return None if self.limit is None else max(0, self.limit - self.used)

    def headers(self) -> dict[str, str]:
        """X-Quota-* on every key-authenticated response (X-RateLimit-* is the burst)."""
        values = {"X-Quota-Used": str(self.used), "X-Quota-Reset": str(self.reset_at)}
        if self.limit is not None:
            values["X-Quota-Limit"] = str(self.limit)
            values["X-Quota-Remaining"] = str(self.remaining)
        return values


def day_of(now: datetime) -> int:
    return math.floor(now.timestamp() / DAY_SECONDS)


def first_day(today: int) -> int:
    return today - QUOTA_WINDOW_DAYS + 1


def window_total(buckets: Mapping[int, int], today: int) -> int:
    start = first_day(today)
    return sum(count for day, count in buckets.items() if start <= day <= today)


def decide(
    buckets: Mapping[int, int], quota: int | None, now: datetime, *, counted: bool
) -> QuotaDecision:
    """The decision for `buckets` (which already include this request if `counted`)."""
    today = day_of(now)
    used = window_total(buckets, today)
    in_window = sorted(
        (day, count) for day, count in buckets.items() if first_day(today) <= day <= today
    )
    oldest = in_window[0][0] if in_window else today
    reset_at = (oldest + QUOTA_WINDOW_DAYS) * DAY_SECONDS
    if counted or quota is None:
        return QuotaDecision(True, quota, used, reset_at, 0)
    # Drop days from the oldest on until the rest leaves room for one more request.
    left = used
    pass_at = (today + QUOTA_WINDOW_DAYS) * DAY_SECONDS
    for day, count in in_window:
        left -= count
        if left < quota:
            pass_at = (day + QUOTA_WINDOW_DAYS) * DAY_SECONDS
            break
    retry = max(1, math.ceil(pass_at - now.timestamp()))
    return QuotaDecision(False, quota, used, reset_at, retry)


__all__ = ["DAY_SECONDS", "QuotaDecision", "day_of", "decide", "first_day", "window_total"]
