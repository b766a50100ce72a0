"""A streaming session: generated text pushed to a topic's subscribers (DECL-7).

Every frame is a JSON object ``{"type", "session_id", "seq", ...payload}`` broadcast on
the topic; ``seq`` counts per session from 1. ``complete()`` and ``error()`` end the
session (only the first of them counts); later sends are dropped. A session nobody
closes ends with an error ``timeout`` seconds after it started (its first frame or
``pipe()``), so subscribers never wait forever; an unused session sends nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterable
from typing import Any, ClassVar

from ._broadcaster import Broadcaster

__all__ = ["StreamingSession"]

log = logging.getLogger("mcpcast.broadcast")


class StreamingSession:
    """Wraps a topic's broadcaster; a tool can ``spawn(source)`` and return at once."""

    # Read by the tool registry: a tool injecting this type needs a `topic` argument.
    __mcpcast_needs_topic__: ClassVar[bool] = True

    def __init__(
        self,
        broadcaster: Broadcaster,
        *,
        session_id: str | None = None,
        timeout: float | None = 300.0,
    ) -> None:
        self.broadcaster = broadcaster
        self.session_id = session_id or secrets.token_urlsafe(12)
        self.timeout = timeout
        self._seq = 0
        self._closed = False
        self._lock = asyncio.Lock()  # frames reach the backend in seq order
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        return f"StreamingSession({self.broadcaster.name!r}, {self.session_id!r})"

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def topic(self) -> str:
        return self.broadcaster.name

    def _start_timer(self) -> None:
        if self.timeout is None or self._timer is not None:
            return
        self._timer = asyncio.get_running_loop().call_later(self.timeout, self._expire)

    def _expire(self) -> None:
        if not self._closed:
            log.warning("streaming session %s on %r timed out", self.session_id, self.topic)
            self._track(asyncio.get_running_loop().create_task(self._expired()))

    async def _expired(self) -> None:
        await self.error("session timed out")

    def _track(self, task: asyncio.Task[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _emit(self, kind: str, payload: dict[str, Any], *, final: bool = False) -> bool:
        async with self._lock:
            if self._closed:
                log.debug("dropping %s frame: session %s is closed", kind, self.session_id)
                return False
            self._start_timer()
            if final:
                # Closed before the await: a concurrent complete()/error() is a no-op.
                self._closed = True
                if self._timer is not None:
                    self._timer.cancel()
            self._seq += 1
            frame = {"type": kind, "session_id": self.session_id, "seq": self._seq, **payload}
            await self.broadcaster.broadcast(frame)
            return True

    async def send(self, text: str) -> bool:
        """Send a chunk of text; False (and nothing sent) once the session is closed."""
        if not isinstance(text, str):
            raise TypeError("send() takes a str")
        return await self._emit("text", {"text": text})

    async def progress(self, message: str) -> bool:
        return await self._emit("progress", {"message": str(message)})

    async def metadata(self, key: str, value: Any) -> bool:
        """Attach a key/value (JSON-serialisable) to the session's stream."""
        return await self._emit("metadata", {"key": str(key), "value": value})

    async def complete(self) -> bool:
        """End the session successfully; only the first complete()/error() counts."""
        return await self._emit("complete", {}, final=True)

    async def error(self, message: str) -> bool:
        """End the session with an error message; idempotent like complete()."""
        return await self._emit("error", {"message": str(message)}, final=True)

    async def pipe(self, source: AsyncIterable[str]) -> None:
        """Send every chunk of ``source``, then complete; an exception becomes error().

        The exception's details stay in the server log, never in the frames.
        """
        if not self._closed:
            self._start_timer()  # a source that never yields still ends in time
        try:
            async for chunk in source:
                if not await self.send(chunk):
                    break  # closed meanwhile (timeout or explicit error)
        except asyncio.CancelledError:
            await self.error("cancelled")
            raise
        except Exception:
            log.exception("text source of streaming session %s failed", self.session_id)
            await self.error("text generation failed")
        else:
            await self.complete()

    def spawn(self, source: AsyncIterable[str]) -> asyncio.Task[None]:
        """Run ``pipe(source)`` in the background (the tool returns at once, DECL-7)."""
        task = asyncio.get_running_loop().create_task(self.pipe(source))
        self._track(task)
        return task

    async def aclose(self) -> None:
        """Cancel background work and end the session if it is still open."""
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.error("session closed")
