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
from typing import Any

from .._jsonrpc import RequestId

log = logging.getLogger("mcpcast.session")


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
    __slots__ = ("_streams", "client_capabilities", "client_info", "get_open", "id",
                 "initialized", "last_used", "log_level", "running", "server_log",
                 "subscriptions", "version")

    def __init__(self, session_id: str | None, version: str) -> None:
        self.id = session_id
        self.version = version
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


class SessionStore:
    """In-process sessions with an idle expiry; ids are 128 random bits."""

    def __init__(self, ttl: float, limit: int) -> None:
        self.ttl = ttl
        self.limit = limit
        self._sessions: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self._sessions)

    def new(self, version: str) -> Session | None:
        if len(self._sessions) >= self.limit:
            self.sweep()
            if len(self._sessions) >= self.limit:
                return None
        return Session(secrets.token_hex(16), version)

    def add(self, session: Session) -> None:
        assert session.id is not None
        self._sessions[session.id] = session

    def get(self, session_id: str) -> Session | None:
        session = self._sessions.get(session_id)
        if session is None:
            return None
        now = time.monotonic()
        if now - session.last_used > self.ttl and not session.running:
            self.remove(session_id)
            return None
        session.last_used = now
        return session

    def remove(self, session_id: str) -> Session | None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
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
