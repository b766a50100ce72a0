"""Token-bucket rate limiting behind a small Protocol: memory backend, Redis backend."""

from pacekeeper.ratelimit._memory import Bucket, MemoryRateLimiter
from pacekeeper.ratelimit._protocol import RateDecision, RateLimiter
from pacekeeper.ratelimit._redis import BUCKET_LUA_FUNCTION, RedisRateLimiter, bucket_decision

__all__ = [
    "BUCKET_LUA_FUNCTION",
    "Bucket",
    "MemoryRateLimiter",
    "RateDecision",
    "RateLimiter",
    "RedisRateLimiter",
    "bucket_decision",
]
