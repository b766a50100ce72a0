"""A named topic: broadcast to it, subscribe to it (DECL-5, DECL-6)."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from ._backend import BroadcastBackend
from ._frame import MAX_MESSAGE_BYTES, Frame, encode_message
from ._subscription import CloseReason, Subscription

__all__ = ["Broadcaster"]


class Broadcaster:
    """One topic. ``await b.broadcast(msg)`` reaches every subscriber in every process
    sharing the backend; ``await b.subscribe(after_seq=n)`` replays kept history first.

    Only one backend attachment exists per topic and process, shared by all local
    subscribers; it is taken with the first subscriber and released with the last.
    """

    # Read by the tool registry: a tool injecting this type needs a `topic` argument.
    __mcpcast_needs_topic__: ClassVar[bool] = True

    def __init__(
        self,
        name: str,
        backend: BroadcastBackend,
        *,
        history_size: int = 32,
        queue_size: int = 256,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        if history_size < 0 or queue_size < 1:
            raise ValueError("history_size must be >= 0 and queue_size >= 1")
        self.name = name
        self.history_size = history_size
        self.queue_size = queue_size
        self.max_message_bytes = max_message_bytes
        self._backend = backend
        self._subscribers: set[Subscription] = set()
        self._attached = False
        self._attach_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False

    def __repr__(self) -> str:
        return f"Broadcaster({self.name!r}, subscribers={len(self._subscribers)})"

    @property
    def subscriber_count(self) -> int:
        """Subscribers in this process."""
        return len(self._subscribers)

    @property
    def closed(self) -> bool:
        return self._closed

    async def broadcast(self, message: str | dict[str, Any]) -> int:
        """Send ``message`` to every subscriber; return its sequence number.

        Raises ``TypeError``/``ValueError`` for a message that is not a str or a
        JSON-serialisable dict, or is too large; nothing is sent then.
        """
        if self._closed:
            raise RuntimeError(f"broadcaster {self.name!r} is closed")
        payload = encode_message(message, self.max_message_bytes)
        frame = await self._backend.publish(self.name, payload, self.history_size)
        return frame.seq

    async def subscribe(self, after_seq: int | None = None) -> Subscription:
        """A new subscription; with ``after_seq``, kept frames after it come first.

        An ``after_seq`` beyond the topic's last sequence number (say, the server
        restarted without shared history) is treated as a fresh start from that last
        number rather than skipping future frames. Either way ``sub.last_seq`` is the
        effective resume point, which subscribers are told.
        """
        if self._closed:
            raise RuntimeError(f"broadcaster {self.name!r} is closed")
        if after_seq is not None and after_seq < 0:
            raise ValueError("after_seq must be >= 0")
        sub = Subscription(self.name, self.queue_size, self._release)
        # Register before attaching and replaying: live frames are queued meanwhile and
        # duplicates of history are skipped by sequence number, so nothing falls between.
        self._subscribers.add(sub)
        try:
            await self._ensure_attached()
            if after_seq is not None:
                last, frames = await self._backend.replay(self.name, after_seq)
                if after_seq <= last:
                    sub.replay(frames, after_seq)
                else:
                    sub.replay((), last)
        except BaseException:
            sub.close()
            raise
        return sub

    async def history(self, after_seq: int = 0) -> list[Frame]:
        """The kept frames after ``after_seq`` (at most ``history_size``)."""
        return (await self._backend.replay(self.name, after_seq))[1]

    async def last_seq(self) -> int:
        """The topic's last sequence number (0 before the first broadcast)."""
        return (await self._backend.replay(self.name, 2**62))[0]

    def _deliver(self, frame: Frame) -> None:
        for sub in list(self._subscribers):
            sub.offer(frame)

    def _rebase(self, last_seq: int) -> None:
        for sub in list(self._subscribers):
            sub.rebase(last_seq)

    async def _ensure_attached(self) -> None:
        async with self._attach_lock:
            if not self._attached:
                await self._backend.attach(self.name, self._deliver, self._rebase)
                self._attached = True

    def _release(self, sub: Subscription) -> None:
        self._subscribers.discard(sub)
        if not self._subscribers and self._attached and not self._closed:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # closed outside a loop: detach happens at close()
                return
            task = loop.create_task(self._detach_if_idle())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _detach_if_idle(self) -> None:
        async with self._attach_lock:
            if not self._subscribers and self._attached:
                self._attached = False
                await self._backend.detach(self.name, self._deliver)

    async def close(self, reason: str = CloseReason.SHUTDOWN) -> None:
        """End every subscription with ``reason`` and detach from the backend."""
        if self._closed:
            return
        self._closed = True
        for sub in list(self._subscribers):
            sub.close(reason)
        for task in list(self._tasks):
            task.cancel()
        async with self._attach_lock:
            if self._attached:
                self._attached = False
                await self._backend.detach(self.name, self._deliver)
