"""Usage counters in Redis, shared by every process (KEY-6 across processes).

One hash per key, `pk:usage:<key id>`, field = day, value = requests. A Lua script sums
the window, refuses at the quota or counts, atomically for all processes. When the hash
is missing (first use, or Redis lost its data) it is seeded from the database, which
each process keeps up to date with its own increments in batches (`PendingUsage`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any

from redis.asyncio import Redis

from pacekeeper.apikeys._store import ApiKeyRepository
from pacekeeper.apikeys._tiers import QUOTA_WINDOW_DAYS
from pacekeeper.apikeys._usage import PendingUsage
from pacekeeper.apikeys._window import DAY_SECONDS, QuotaDecision, day_of, first_day

_TTL_SECONDS = (QUOTA_WINDOW_DAYS + 1) * DAY_SECONDS

# A Lua function (the key gate runs it in the same script as the burst bucket). It also
# makes the decision (`_window.decide`'s arithmetic), so a reply is four numbers, not a
# month of buckets to parse. Returns {-1} when unseeded, else {allowed 0/1, used in the
# window (this request included when allowed), oldest day with a count (today if none),
# day whose end-of-window lets the next request pass (refused only; else 0)}.
# The window's sum and oldest day are kept in the hash (fields `sum`, `oldest`, valid
# for the day in `sum_day`): within a day a request reads three fields, not thirty.
QUOTA_LUA_FUNCTION = """
local function quota_days(key, first, today)
  local fields = {}
  for d = first, today do fields[#fields + 1] = tostring(d) end
  local values = redis.call('HMGET', key, unpack(fields))
  local total = 0
  local oldest = -1
  for i = 1, #values do
    local n = tonumber(values[i]) or 0
    values[i] = n
    total = total + n
    if n ~= 0 and oldest < 0 then oldest = first + i - 1 end
  end
  return values, total, oldest
end

local function quota_consume(key, first, today, quota, ttl)
  local kept = redis.call('HMGET', key, 'sum_day', 'sum', 'oldest', 'seeded')
  if not kept[4] and redis.call('EXISTS', key) == 0 then return {-1} end
  local total, oldest
  if tonumber(kept[1]) == today then
    total = tonumber(kept[2])
    oldest = tonumber(kept[3])
  else
    local values
    values, total, oldest = quota_days(key, first, today)
  end
  if quota < 0 or total < quota then
    redis.call('HINCRBY', key, tostring(today), 1)
    if oldest < 0 then oldest = today end
    redis.call('HSET', key, 'sum_day', today, 'sum', total + 1, 'oldest', oldest)
    redis.call('EXPIRE', key, ttl)
    return {1, total + 1, oldest, 0}
  end
  redis.call('HSET', key, 'sum_day', today, 'sum', total, 'oldest', oldest)
  if oldest < 0 then oldest = today end
  -- Drop days from the oldest on until the rest leaves room for one more request.
  local values = quota_days(key, first, today)
  local left = total
  local pass = today
  for i = 1, #values do
    left = left - values[i]
    if values[i] ~= 0 and left < quota then
      pass = first + i - 1
      break
    end
  end
  return {0, total, oldest, pass}
end
"""

# KEYS[1] hash; ARGV: first day, today, quota (-1 unlimited), ttl.
_CONSUME = QUOTA_LUA_FUNCTION + """
return quota_consume(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]),
                     ARGV[4])
"""

# Seed only if still missing: two processes seeding at once must not double the counts.
_SEED = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'seeded', '1', unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""


def usage_hash(key_id: str) -> str:
    return f"pk:usage:{key_id}"


class RedisUsageCounter:
    def __init__(
        self, redis: Redis, store: ApiKeyRepository, clock: Callable[[], datetime]
    ) -> None:
        self.pending = PendingUsage(store)
        self._redis = redis
        self._store = store
        self._clock = clock
        self._consume = redis.register_script(_CONSUME)
        self._seed = redis.register_script(_SEED)

    async def _seed_from_db(self, key_id: str, today: int) -> None:
        stored = (await self._store.usage_since([key_id], first_day(today)))[key_id]
        # What this process counted but has not flushed yet is part of the truth too.
        for day, n in self.pending.pending(key_id).items():
            stored[day] = stored.get(day, 0) + n
        flat: list[Any] = []
        for day, count in stored.items():
            flat += [str(day), count]
        await self._seed(keys=[usage_hash(key_id)], args=[_TTL_SECONDS, *flat])

    async def consume(self, key_id: str, quota: int | None, now: datetime) -> QuotaDecision:
        today = day_of(now)
        start = first_day(today)
        args = [start, today, -1 if quota is None else quota, _TTL_SECONDS]
        reply = await self._consume(keys=[usage_hash(key_id)], args=args)
        if int(reply[0]) == -1:
            await self._seed_from_db(key_id, today)
            reply = await self._consume(keys=[usage_hash(key_id)], args=args)
        return self.decision(key_id, reply, quota, now)

    def decision(self, key_id: str, reply: list[Any], quota: int | None, now: datetime
                 ) -> QuotaDecision:
        """The decision of a seeded `quota_consume` reply; counts it when allowed."""
        used = int(reply[1])
        reset_at = (int(reply[2]) + QUOTA_WINDOW_DAYS) * DAY_SECONDS
        if int(reply[0]) == 1:
            self.pending.record(key_id, now)
            return QuotaDecision(True, quota, used, reset_at, 0)
        pass_at = (int(reply[3]) + QUOTA_WINDOW_DAYS) * DAY_SECONDS
        retry = max(1, math.ceil(pass_at - now.timestamp()))
        return QuotaDecision(False, quota, used, reset_at, retry)

    async def used(self, key_ids: Collection[str], now: datetime) -> dict[str, int]:
        today = day_of(now)
        days = [str(d) for d in range(first_day(today), today + 1)]
        found: dict[str, int] = {}
        for key_id in key_ids:
            if await self._redis.exists(usage_hash(key_id)) == 0:
                await self._seed_from_db(key_id, today)
            values = await self._redis.hmget(usage_hash(key_id), days)
            found[key_id] = sum(int(v) for v in values if v is not None)
        return found

    async def flush(self) -> None:
        await self.pending.flush()


__all__ = ["QUOTA_LUA_FUNCTION", "RedisUsageCounter", "usage_hash"]
