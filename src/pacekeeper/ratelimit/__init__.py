"""Token-bucket rate limiting behind a small Protocol (memory backend; Redis slots in)."""

from pacekeeper.ratelimit._memory import MemoryRateLimiter
from pacekeeper.ratelimit._protocol import RateDecision, RateLimiter

__all__ = ["MemoryRateLimiter", "RateDecision", "RateLimiter"]
