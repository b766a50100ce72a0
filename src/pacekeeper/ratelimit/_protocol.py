"""The rate limiter seen by callers: one async Protocol, one decision type, its headers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


# Not frozen: one is built per limited request, and a frozen dataclass's __init__ costs
# about four times as much (an object.__setattr__ call per field). Treat it as a value.
@dataclass(slots=True)
class RateDecision:
    allowed: bool
    limit: int
    remaining: int
    reset_at: int  # Unix time at which the bucket is full again
    retry_after: int  # seconds until the next request can pass (0 when allowed)

    def headers(self) -> dict[str, str]:
        """X-RateLimit-* on every limited response; Retry-After when rejected."""
        values = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }
        if not self.allowed:
            values["Retry-After"] = str(self.retry_after)
        return values

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """`headers()` as ASGI wants them (lower-case byte pairs), for raw ASGI callers
        (the /mcp gate adds them to every answer: no dict, no re-encoding per name)."""
        raw = [(b"x-ratelimit-limit", b"%d" % self.limit),
               (b"x-ratelimit-remaining", b"%d" % self.remaining),
               (b"x-ratelimit-reset", b"%d" % self.reset_at)]
        if not self.allowed:
            raw.append((b"retry-after", b"%d" % self.retry_after))
        return raw


class RateLimiter(Protocol):
    """Token bucket per key: `limit_per_minute` capacity, refilled evenly over a minute.

    Backends (memory here; Redis for several processes) must make `hit` atomic per key.
    """

    async def hit(self, key: str, limit_per_minute: int, cost: int = 1) -> RateDecision: ...


__all__ = ["RateDecision", "RateLimiter"]
