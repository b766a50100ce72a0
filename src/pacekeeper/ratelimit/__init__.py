"""Token-bucket rate limiting behind a small Protocol: memory backend, Redis backend."""

from pacekeeper.ratelimit._memory import MemoryRateLimiter
from pacekeeper.ratelimit._protocol import RateDecision, RateLimiter
from pacekeeper.ratelimit._redis import RedisRateLimiter

__all__ = ["MemoryRateLimiter", "RateDecision", "RateLimiter", "RedisRateLimiter"]
