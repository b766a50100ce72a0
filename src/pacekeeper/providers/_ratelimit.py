"""What each provider tells us about its quota, so we stop before it says 429.

Each provider's spec names its parser (``ProviderSpec.rate_limits``): its headers are
its own business, kept in its folder (Strava's ``X-RateLimit-Usage``, Fitbit's
``fitbit-rate-limit-*``). ``parse_rate_limits`` here reads the common
``X-RateLimit-Limit/-Remaining/-Reset`` (reset as Unix time), the default.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from email.utils import parsedate_to_datetime


@dataclass(frozen=True, slots=True)
class RateLimitWindow:
    name: str
    limit: int
    remaining: int
    resets_at: float  # Unix time


def header_ints(value: str | None) -> list[int]:
    if not value:
        return []
    try:
        return [int(float(p)) for p in value.split(",")]
    except ValueError:
        return []


# Reads one response's headers (lower-cased names) at ``now``: the windows it announces.
RateLimitParser = Callable[[Mapping[str, str], float], list[RateLimitWindow]]


def windows_from(headers: Mapping[str, str], now: float, prefix: str, *,
                 reset_is_delta: bool) -> list[RateLimitWindow]:
    """One window from ``<prefix>-limit``, ``-remaining`` and ``-reset`` (seconds from
    now when ``reset_is_delta``, else Unix time); none unless all three are numbers."""
    limit = header_ints(headers.get(f"{prefix}-limit"))
    remaining = header_ints(headers.get(f"{prefix}-remaining"))
    reset = header_ints(headers.get(f"{prefix}-reset"))
    if not (limit and remaining and reset):
        return []
    at = now + reset[0] if reset_is_delta else float(reset[0])
    return [RateLimitWindow(prefix, limit[0], remaining[0], at)]


def parse_rate_limits(headers: Mapping[str, str], now: float) -> list[RateLimitWindow]:
    """The common ``X-RateLimit-*`` headers (a spec's default parser)."""
    return windows_from(headers, now, "x-ratelimit", reset_is_delta=False)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date (RFC 9110)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - now)
    except (TypeError, ValueError):
        return None


# Whose request this is: what its fair share is counted by (the connection layer sets it
# around provider calls; the HTTP layer has no other way to know).
current_share_keys: ContextVar[tuple[str, ...]] = ContextVar(
    "pacekeeper_provider_share_keys", default=())
DEFAULT_TENANT_SHARE = 0.5


def share_keys(tenant: object | None, provider_account: str | None = None) -> tuple[str, ...]:
    """The keys a request's share is counted by: its tenant and, once connected, the
    provider account (athlete) it acts for. A person can open many tenants (every
    self-registered account has its own) but not many provider accounts."""
    keys = [] if tenant is None else [f"tenant:{tenant}"]
    if provider_account:
        keys.append(f"account:{provider_account}")
    return tuple(keys)


class RateLimitTracker:
    """Latest known windows of one quota (share one per Strava app, one per Fitbit user).

    Fair share (issue 20, #5; issue 28): a provider's quota is the application's,
    shared by everyone, so one party could spend it for all. Each share key of a request
    (``share_keys``: its tenant, its provider account) may use at most ``tenant_share``
    of what it could still reach in each window: its own requests in the window plus what
    remains. With 0.5, a first party stops at half the window, the next at half of the
    rest, and so on. Counting by the provider account too means six tenants connected to
    one athlete stop together at the athlete's half, and others still find theirs.
    """

    def __init__(self, tenant_share: float = DEFAULT_TENANT_SHARE, *,
                 parser: RateLimitParser) -> None:
        if not 0 < tenant_share <= 1:
            raise ValueError("tenant_share must be in (0, 1]")
        self.tenant_share = tenant_share
        # The provider's own (its spec's ``rate_limits``): no default, so a tracker
        # cannot silently read another provider's headers.
        self._parse = parser
        self._windows: dict[str, RateLimitWindow] = {}
        # (share key, window name) -> [requests in the window, when that window resets]
        self._used: dict[tuple[str, str], list[float]] = {}

    def observe(self, headers: Mapping[str, str], now: float) -> None:
        lower = {k.lower(): v for k, v in headers.items()}
        for window in self._parse(lower, now):
            self._windows[window.name] = window

    def count(self, keys: Sequence[str], now: float) -> None:
        """One request went out: count it for each of its keys in every running window."""
        if not keys or self.tenant_share >= 1:
            return
        if len(self._used) > 10_000:  # forget windows that have reset
            self._used = {k: v for k, v in self._used.items() if v[1] > now}
        for window in self._windows.values():
            if window.resets_at <= now:
                continue
            for key in keys:
                entry = self._used.get((key, window.name))
                if entry is None or entry[1] <= now:
                    self._used[(key, window.name)] = [1, window.resets_at]
                else:
                    entry[0] += 1

    def share_blocked_for(self, keys: Sequence[str], now: float) -> float | None:
        """Seconds until a request with these keys may go out, when one of them used up
        its fair share."""
        if not keys or self.tenant_share >= 1:
            return None
        waits = []
        for window in self._windows.values():
            for key in keys:
                entry = self._used.get((key, window.name))
                if entry is None or entry[1] <= now or window.resets_at <= now:
                    continue
                used = entry[0]
                reachable = used + max(0, window.remaining)
                if used >= max(1.0, math.floor(self.tenant_share * reachable)):
                    waits.append(entry[1] - now)
        return max(waits) if waits else None

    def exhaust(self, name: str, until: float) -> None:
        self._windows[name] = RateLimitWindow(name, 0, 0, until)

    def blocked_for(self, now: float) -> float | None:
        """Seconds until a spent window resets, or None when a request may go out."""
        waits = [
            w.resets_at - now
            for w in self._windows.values()
            if w.remaining <= 0 and w.resets_at > now
        ]
        return max(waits) if waits else None

    @property
    def windows(self) -> list[RateLimitWindow]:
        return list(self._windows.values())
