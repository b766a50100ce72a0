"""One Redis round trip per key-authenticated request: revocations, burst and quota.

With Redis, the three shared checks of a request (has anything been revoked, the
tier's token bucket, the 30-day quota) would be three round trips; this script does
them in one, atomically: the quota is only counted when the bucket let the request
through. It runs the very same Lua functions as `RedisRateLimiter` and
`RedisUsageCounter`, so there is still one rate-limit mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from redis.asyncio import Redis

from pacekeeper.apikeys._revocation import RedisRevocationSignal
from pacekeeper.apikeys._tiers import QUOTA_WINDOW_DAYS
from pacekeeper.apikeys._usage_redis import QUOTA_LUA_FUNCTION, RedisUsageCounter, usage_hash
from pacekeeper.apikeys._window import DAY_SECONDS, QuotaDecision
from pacekeeper.ratelimit import BUCKET_LUA_FUNCTION, RateDecision, bucket_decision

_TTL_SECONDS = (QUOTA_WINDOW_DAYS + 1) * DAY_SECONDS

# KEYS: revocations, bucket, usage; ARGV: now, capacity, first day, today, quota, ttl.
# Returns {version, bucket allowed, tokens, quota reply (4 numbers)}; no quota reply if
# the bucket refused.
_GATE = BUCKET_LUA_FUNCTION + QUOTA_LUA_FUNCTION + """
local version = redis.call('GET', KEYS[1]) or '0'
local allowed, tokens = token_bucket(KEYS[2], tonumber(ARGV[1]), tonumber(ARGV[2]), 1)
if allowed == 0 then return {version, 0, tostring(tokens)} end
local reply = quota_consume(KEYS[3], tonumber(ARGV[3]), tonumber(ARGV[4]),
                            tonumber(ARGV[5]), ARGV[6])
local result = {version, 1, tostring(tokens)}
for i = 1, #reply do result[#result + 1] = reply[i] end
return result
"""


@dataclass(frozen=True, slots=True)
class Metered:
    version: str
    rate: RateDecision
    quota: QuotaDecision | None  # None: the bucket refused, the quota was not touched


class RedisKeyMeter:
    def __init__(self, redis: Redis, usage: RedisUsageCounter, rate_prefix: str = "pk:rate:"
                 ) -> None:
        self._script = redis.register_script(_GATE)
        self._usage = usage
        self._rate_prefix = rate_prefix
        self._keys: dict[str, list[str]] = {}  # the script's KEYS per API key, built once

    def _keys_of(self, key_id: str) -> list[str]:
        keys = self._keys.get(key_id)
        if keys is None:
            if len(self._keys) >= 10_000:
                self._keys.clear()
            keys = self._keys[key_id] = [
                RedisRevocationSignal.KEY, f"{self._rate_prefix}apikey:{key_id}",
                usage_hash(key_id)]
        return keys

    async def meter(self, key_id: str, burst: int, quota: int | None, now: datetime
                    ) -> Metered:
        seconds = now.timestamp()
        today = int(seconds // DAY_SECONDS)
        reply = await self._script(keys=self._keys_of(key_id), args=(
            repr(seconds), burst, today - QUOTA_WINDOW_DAYS + 1, today,
            -1 if quota is None else quota, _TTL_SECONDS))
        version = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
        allowed = int(reply[1]) == 1
        rate = bucket_decision(seconds, burst, 1, allowed, float(reply[2]))
        if not allowed:
            return Metered(version, rate, None)
        if int(reply[3]) == -1:  # usage not in Redis yet: seed from the database, count
            return Metered(version, rate, await self._usage.consume(key_id, quota, now))
        return Metered(version, rate, self._usage.decision(key_id, reply[3:], quota, now))


__all__ = ["Metered", "RedisKeyMeter"]
