"""Token buckets in Redis: one atomic Lua script per hit, shared by every process.

Same arithmetic as the memory backend (capacity = limit, refilled evenly over a
minute; a changed limit keeps the used share). The time comes from the caller's clock,
so tests can move it; processes on one host, or NTP-synchronised hosts, agree on it to
well under a token's worth. Idle buckets expire once they would be full anyway.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from redis.asyncio import Redis

from pacekeeper.ratelimit._protocol import RateDecision

# A Lua function, so other scripts can run the same bucket in their own round trip
# (the API key gate does: revocation check, burst and quota in one call).
BUCKET_LUA_FUNCTION = """
local function token_bucket(key, now, capacity, cost)
  local rate = capacity / 60.0
  local state = redis.call('HMGET', key, 'tokens', 'updated', 'capacity')
  local tokens = tonumber(state[1])
  local updated = tonumber(state[2])
  local old_capacity = tonumber(state[3])
  if tokens == nil then
    tokens = capacity
    updated = now
  elseif old_capacity ~= capacity then
    tokens = tokens * capacity / old_capacity
  end
  tokens = math.min(capacity, tokens + math.max(0, now - updated) * rate)
  local allowed = 0
  if tokens >= cost then
    allowed = 1
    tokens = tokens - cost
  end
  redis.call('HSET', key, 'tokens', tostring(tokens), 'updated', tostring(now),
             'capacity', tostring(capacity))
  redis.call('EXPIRE', key, math.ceil((capacity - tokens) / rate) + 1)
  return allowed, tokens
end
"""

# KEYS[1] bucket hash; ARGV: now, capacity, cost. Returns {allowed, tokens left (string)}.
_HIT = BUCKET_LUA_FUNCTION + """
local allowed, tokens = token_bucket(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]),
                                     tonumber(ARGV[3]))
return {allowed, tostring(tokens)}
"""


def bucket_decision(now: float, capacity: int, cost: int, allowed: bool, tokens: float
                    ) -> RateDecision:
    """The decision for what the bucket script answered (shared with the key gate)."""
    rate = capacity / 60.0
    return RateDecision(
        allowed=allowed,
        limit=capacity,
        remaining=max(0, math.floor(tokens)),
        reset_at=math.ceil(now + (capacity - tokens) / rate),
        retry_after=0 if allowed else max(1, math.ceil((cost - tokens) / rate)),
    )


class RedisRateLimiter:
    def __init__(
        self,
        redis: Redis,
        clock: Callable[[], float] = time.time,
        prefix: str = "pk:rate:",
    ) -> None:
        self._clock = clock
        self._prefix = prefix
        self._script = redis.register_script(_HIT)

    async def hit(self, key: str, limit_per_minute: int, cost: int = 1) -> RateDecision:
        now = self._clock()
        capacity = max(1, limit_per_minute)
        reply = await self._script(keys=[self._prefix + key], args=[repr(now), capacity, cost])
        return bucket_decision(now, capacity, cost, int(reply[0]) == 1, float(reply[1]))


__all__ = ["BUCKET_LUA_FUNCTION", "RedisRateLimiter", "bucket_decision"]
