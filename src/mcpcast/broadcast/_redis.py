"""Redis pub/sub broadcast backend: a broadcast in one process reaches all of them.

Sequence numbers come from ``INCR`` on a per-topic key and history is a capped list;
one Lua script does INCR, RPUSH/LTRIM and PUBLISH atomically, so every process sees
frames in sequence order. Each process holds one pub/sub connection for all topics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from ._backend import FrameSink, ResetSink
from ._frame import Frame

__all__ = ["RedisBackend"]

log = logging.getLogger("mcpcast.broadcast")

_PUBLISH_LUA = """
local seq = redis.call('INCR', KEYS[1])
local wire = seq .. ' ' .. ARGV[1]
local keep = tonumber(ARGV[2])
local ttl = tonumber(ARGV[4])
if keep > 0 then
  redis.call('RPUSH', KEYS[2], wire)
  redis.call('LTRIM', KEYS[2], -keep, -1)
  if ttl > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
end
if ttl > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
redis.call('PUBLISH', ARGV[3], wire)
return seq
"""

# Filters in Redis, so asking for the last seq does not ship the whole history.
_REPLAY_LUA = """
local seq = tonumber(redis.call('GET', KEYS[1]) or '0')
local after = tonumber(ARGV[1])
local kept = {}
if after < seq then
  for _, item in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
    if tonumber(string.match(item, '^%d+')) > after then kept[#kept + 1] = item end
  end
end
return {seq, kept}
"""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisBackend:
    """Broadcast backend on Redis (redis-py asyncio).

    ``key_ttl`` (seconds, 0 = never) lets idle topics' counters and history expire; a
    client resuming after that starts fresh instead of waiting for old numbers.
    """

    def __init__(
        self,
        client: aioredis.Redis,
        *,
        prefix: str = "mcpcast:broadcast:",
        key_ttl: int = 7 * 24 * 3600,
        owns_client: bool = False,
        subscribe_timeout: float = 10.0,
        subscriber: aioredis.Redis | None = None,
    ) -> None:
        self._client = client
        # The pub/sub connection's client (default: the same one). It must see a lost
        # connection (to resynchronise), so it must not retry commands on its own.
        self._subscriber = subscriber or client
        self._prefix = prefix
        self._key_ttl = key_ttl
        self._owns_client = owns_client
        self._subscribe_timeout = subscribe_timeout
        self._publish = client.register_script(_PUBLISH_LUA)
        self._replay = client.register_script(_REPLAY_LUA)
        self._pubsub: Any = None  # redis.asyncio.client.PubSub, created on first attach
        self._sinks: dict[str, FrameSink] = {}
        self._resets: dict[str, ResetSink] = {}
        self._confirmations: dict[str, list[asyncio.Future[None]]] = {}
        self._command_lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisBackend:
        """Two clients: commands (publish, replay) try a dropped connection again, twice,
        50 then 100 ms apart: after a Redis restart every pooled connection is dead and
        the first broadcast on each failed. The pub/sub client does not, so
        `_read_forever` sees the loss and resynchronises."""
        commands = aioredis.Redis.from_url(
            url, retry=Retry(ExponentialBackoff(cap=0.1, base=0.05), 2),
            retry_on_error=[RedisConnectionError, RedisTimeoutError])
        return cls(commands, owns_client=True, subscriber=aioredis.Redis.from_url(url),
                   **options)

    def _keys(self, topic: str) -> list[str]:
        # The hash tag keeps both keys of a topic in one Redis Cluster slot.
        return [f"{self._prefix}{{{topic}}}:seq", f"{self._prefix}{{{topic}}}:history"]

    def _channel(self, topic: str) -> str:
        return f"{self._prefix}{topic}"

    async def publish(self, topic: str, payload: str, history_size: int) -> Frame:
        seq = await self._publish(
            keys=self._keys(topic),
            args=[payload, history_size, self._channel(topic), self._key_ttl],
        )
        return Frame(int(seq), payload)

    async def replay(self, topic: str, after_seq: int) -> tuple[int, list[Frame]]:
        last, items = await self._replay(keys=self._keys(topic), args=[after_seq])
        return int(last), [Frame.from_wire(item) for item in items]

    async def attach(self, topic: str, sink: FrameSink,
                     on_reset: ResetSink | None = None) -> None:
        if self._closed:
            raise RuntimeError("redis broadcast backend is closed")
        self._sinks[topic] = sink
        if on_reset is not None:
            self._resets[topic] = on_reset
        channel = self._channel(topic)
        confirmed = asyncio.get_running_loop().create_future()
        waiters = self._confirmations.setdefault(channel, [])
        waiters.append(confirmed)
        try:
            async with self._command_lock:
                if self._pubsub is None:
                    self._pubsub = self._subscriber.pubsub()
                await self._pubsub.subscribe(channel)
            if self._reader is None:
                self._reader = asyncio.get_running_loop().create_task(self._read_forever())
            # Wait for Redis to confirm: a broadcast made after attach() returns is never missed.
            async with asyncio.timeout(self._subscribe_timeout):
                await confirmed
        except BaseException:
            if confirmed in waiters:
                waiters.remove(confirmed)
            if self._sinks.get(topic) == sink:
                del self._sinks[topic]
                self._resets.pop(topic, None)
            raise

    async def detach(self, topic: str, sink: FrameSink) -> None:
        if self._sinks.get(topic) != sink:
            return
        del self._sinks[topic]
        self._resets.pop(topic, None)
        async with self._command_lock:
            if self._pubsub is not None and not self._closed:
                await self._pubsub.unsubscribe(self._channel(topic))

    async def _read_forever(self) -> None:
        backoff = 0.1
        lost = False
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
                if lost:  # back: resynchronise before delivering anything new
                    await self._resync()
                    lost = False
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # connection lost: redis-py resubscribes on reconnect
                log.warning("redis pub/sub read failed (%s); retrying", type(exc).__name__)
                lost = True
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            backoff = 0.1
            if message is not None:
                self._dispatch(message)

    async def _resync(self) -> None:
        """After a lost connection Redis may have lost its data (a restart without
        persistence): every topic's numbers start again at 1, and subscribers that saw
        higher ones would drop the new frames as duplicates. Tell each topic its last
        number (found by bench/faults: live feeds went silent after a Redis restart)."""
        for topic, on_reset in list(self._resets.items()):
            last, _ = await self.replay(topic, 2**62)
            on_reset(last)

    def _dispatch(self, message: dict[str, Any]) -> None:
        kind = _text(message["type"])
        channel = _text(message["channel"])
        if kind == "message":
            sink = self._sinks.get(channel[len(self._prefix) :])
            if sink is not None:
                try:
                    frame = Frame.from_wire(message["data"])
                except ValueError:
                    log.warning("ignoring malformed frame on %r", channel)
                    return
                sink(frame)
        elif kind == "subscribe":
            for waiter in self._confirmations.pop(channel, []):
                if not waiter.done():
                    waiter.set_result(None)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._sinks.clear()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        if self._owns_client:
            await self._client.aclose()
            if self._subscriber is not self._client:
                await self._subscriber.aclose()
