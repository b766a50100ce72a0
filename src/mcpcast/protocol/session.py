"""Legacy-era sessions: what the handshake negotiated, and the session's server stream.

A session is plain state; the transports decide how its stream logs reach the client
(the Streamable HTTP GET stream, a WebSocket, an SSE stream).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Hashable
from typing import Any

from .._errors import McpcastError
from .._jsonrpc import RequestId

log = logging.getLogger("mcpcast.session")

# The owner of every session opened without a principal.
ANONYMOUS = "anonymous"


class StreamLog:
    """The events of one SSE stream, kept (bounded) so a client can resume after a drop.

    Event ids are ``<stream id>.<sequence>``; a client reconnecting with
    ``Last-Event-ID`` gets what it missed. Only the newest ``limit`` events are kept, so
    a reader that falls further behind loses events, never server memory.
    """

    __slots__ = ("changed", "done", "events", "seq", "stream_id")

    def __init__(self, stream_id: str, limit: int) -> None:
        self.stream_id = stream_id
        self.events: deque[tuple[int, bytes]] = deque(maxlen=limit)
        self.seq = 0
        self.done = False
        self.changed = asyncio.Event()

    def event_id(self, seq: int) -> str:
        return f"{self.stream_id}.{seq}"

    def append(self, payload: bytes) -> int:
        self.seq += 1
        self.events.append((self.seq, payload))
        self._wake()
        return self.seq

    def finish(self) -> None:
        self.done = True
        self._wake()

    def after(self, seq: int) -> list[tuple[int, bytes]]:
        if self.events and self.events[0][0] > seq + 1:
            log.warning("stream %s: a reader fell behind and lost %d events", self.stream_id,
                        self.events[0][0] - seq - 1)
        return [(n, data) for n, data in self.events if n > seq]

    async def wait(self, within: float) -> None:
        """Wait until something is appended or the stream ends (TimeoutError otherwise)."""
        await asyncio.wait_for(self.changed.wait(), within)

    def _wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()


def id_key(request_id: RequestId) -> tuple[bool, RequestId]:
    # 1 and "1" are different JSON-RPC ids.
    return (isinstance(request_id, str), request_id)


class Session:
    __slots__ = ("_streams", "client_capabilities", "client_info", "connected", "get_open",
                 "id", "initialized", "last_used", "log_level", "owner", "running",
                 "server_log", "subscriptions", "version")

    def __init__(self, session_id: str | None, version: str,
                 owner: Hashable = ANONYMOUS) -> None:
        self.id = session_id
        self.version = version
        # Who may use the session: the identity key of the principal that created it.
        self.owner = owner
        self.connected = False  # held by a live WebSocket or HTTP+SSE connection
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] = {}
        self.initialized = False
        self.log_level: int | None = None
        self.subscriptions: set[str] = set()
        self.running: dict[tuple[bool, RequestId], asyncio.Task[Any]] = {}
        self.server_log: StreamLog | None = None  # the GET stream's events, once opened
        self.get_open = False
        self._streams: OrderedDict[str, StreamLog] | None = None  # made when first needed
        self.last_used = time.monotonic()

    def new_stream(self, limit: int, keep: int) -> StreamLog:
        """A log for one POST response stream; only the newest ``keep`` logs are kept."""
        if self._streams is None:
            self._streams = OrderedDict()
        stream = StreamLog(f"p{len(self._streams)}{secrets.token_hex(3)}", limit)
        self._streams[stream.stream_id] = stream
        while len(self._streams) > keep:
            self._streams.popitem(last=False)
        return stream

    def find_stream(self, stream_id: str) -> StreamLog | None:
        if self.server_log is not None and stream_id == self.server_log.stream_id:
            return self.server_log
        return self._streams.get(stream_id) if self._streams is not None else None

    @property
    def busy(self) -> bool:
        """In use right now (a request running, a stream or connection open)."""
        return bool(self.running) or self.get_open or self.connected

    def deliver(self, payload: bytes) -> None:
        """Queue a message for the session's GET stream, if it ever opened one."""
        if self.server_log is not None:
            self.server_log.append(payload)

    def close(self) -> None:
        for task in list(self.running.values()):
            task.cancel()
        self.running.clear()
        if self.server_log is not None:
            self.server_log.finish()
        for stream in (self._streams or {}).values():
            stream.finish()


class SessionLimit(McpcastError):
    """A new session was refused: ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


class SessionStore:
    """In-process sessions with an idle expiry; ids are 128 random bits.

    Nobody may fill the table (``limit``) for everyone else: anonymous sessions are
    created at most ``anonymous_per_minute`` per client address (a token bucket, 0 turns
    it off), each principal holds at most ``per_owner`` sessions (its least recently used
    idle one makes room for a new one), and a full table evicts the least recently used
    idle anonymous session before it refuses an authenticated caller.
    """

    def __init__(self, ttl: float, limit: int, *, per_owner: int = 0,
                 anonymous_per_minute: int = 0) -> None:
        self.ttl = ttl
        self.limit = limit
        self.per_owner = per_owner
        self.anonymous_per_minute = anonymous_per_minute
        self._sessions: dict[str, Session] = {}
        self._anonymous: OrderedDict[str, None] = OrderedDict()  # least recently used first
        self._owned: dict[Hashable, dict[str, None]] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, when)

    def __len__(self) -> int:
        return len(self._sessions)

    def new(self, version: str, owner: Hashable = ANONYMOUS,
            address: str | None = None) -> Session:
        """A session for ``owner`` (not yet in the table: ``add`` it once initialized).

        Raises ``SessionLimit`` (429 or 503) when the caller may not have another one.
        """
        if owner == ANONYMOUS:
            self._spend(address)
        elif self.per_owner > 0:
            owned = self._owned.get(owner)
            if owned is not None and len(owned) >= self.per_owner \
                    and not self._evict_lru(owned, len(owned) - self.per_owner + 1):
                raise SessionLimit(429, "Too many sessions for this caller: end one first")
        if len(self._sessions) >= self.limit:
            self.sweep()
            if len(self._sessions) >= self.limit and (
                    owner == ANONYMOUS or not self._evict_lru(
                        self._anonymous, len(self._sessions) - self.limit + 1)):
                raise SessionLimit(503, "Too many sessions; try again later")
        return Session(secrets.token_hex(16), version, owner)

    def _spend(self, address: str | None) -> None:
        """Take one anonymous session from ``address``'s bucket, or raise 429."""
        per_minute = self.anonymous_per_minute
        if per_minute <= 0 or address is None:
            return
        now = time.monotonic()
        tokens, then = self._buckets.get(address, (float(per_minute), now))
        tokens = min(float(per_minute), tokens + (now - then) * per_minute / 60.0)
        if tokens < 1.0:
            self._buckets[address] = (tokens, now)
            wait = max(1, int((1.0 - tokens) * 60.0 / per_minute + 0.999))
            raise SessionLimit(429, "Too many new sessions from this address; try again later",
                               wait)
        self._buckets[address] = (tokens - 1.0, now)
        if len(self._buckets) > 4096:  # bounded: forget the addresses whose bucket is full
            full = [a for a, (t, w) in self._buckets.items()
                    if t + (now - w) * per_minute / 60.0 >= per_minute]
            for gone in full:
                del self._buckets[gone]

    def _evict_lru(self, order: dict[str, None], count: int) -> bool:
        """End the ``count`` least recently used idle sessions listed in ``order``."""
        idle = [sid for sid in order if not self._sessions[sid].busy]
        if len(idle) < count:
            return False
        if order is not self._anonymous:  # a principal's own sessions: oldest use first
            idle.sort(key=lambda sid: self._sessions[sid].last_used)
        for sid in idle[:count]:
            self.remove(sid)
        return True

    def claim(self, session: Session, owner: Hashable) -> bool:
        """Give an anonymous session to the first principal that uses it.

        A client may initialize before it has a token and authenticate on its first
        guarded call (the MCP SDKs do), so the session it holds must become its own. Only
        a session no live connection holds can be claimed (an HTTP+SSE or WebSocket
        stream stays with whoever reads it), and its anonymous GET stream is ended: from
        now on only ``owner`` may use it, and nobody else ever reads what it says.
        """
        sid = session.id
        if session.owner != ANONYMOUS or session.connected or sid is None:
            return False
        owned = self._owned.get(owner)
        if self.per_owner > 0 and owned is not None and len(owned) >= self.per_owner \
                and not self._evict_lru(owned, len(owned) - self.per_owner + 1):
            return False
        self._anonymous.pop(sid, None)
        session.owner = owner
        self._owned.setdefault(owner, {})[sid] = None
        if session.server_log is not None:
            session.server_log.finish()
            session.server_log = None
        return True

    def add(self, session: Session) -> None:
        sid = session.id
        assert sid is not None
        self._sessions[sid] = session
        if session.owner == ANONYMOUS:
            self._anonymous[sid] = None
        else:
            self._owned.setdefault(session.owner, {})[sid] = None

    def get(self, session_id: str) -> Session | None:
        session = self._sessions.get(session_id)
        if session is None:
            return None
        now = time.monotonic()
        if now - session.last_used > self.ttl and not session.running:
            self.remove(session_id)
            return None
        session.last_used = now
        if session.owner == ANONYMOUS:
            self._anonymous.move_to_end(session_id)
        return session

    def remove(self, session_id: str) -> Session | None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            if session.owner == ANONYMOUS:
                self._anonymous.pop(session_id, None)
            else:
                owned = self._owned.get(session.owner)
                if owned is not None:
                    owned.pop(session_id, None)
                    if not owned:
                        del self._owned[session.owner]
            session.close()
        return session

    def sweep(self) -> None:
        now = time.monotonic()
        for sid, session in list(self._sessions.items()):
            if now - session.last_used > self.ttl and not session.running:
                self.remove(sid)

    def all(self) -> list[Session]:
        return list(self._sessions.values())

    def close(self) -> None:
        for sid in list(self._sessions):
            self.remove(sid)
