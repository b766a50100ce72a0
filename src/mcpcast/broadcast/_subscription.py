"""A subscriber's bounded queue of frames, consumed as an async iterator.

Memory stays bounded: each subscription holds at most ``maxsize`` shared frames. A
consumer too slow to keep up is dropped (its queue is freed and iteration ends with
``reason == "overflow"``) rather than letting the queue grow.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable, Iterable
from types import TracebackType

from ._frame import Frame

__all__ = ["CloseReason", "Subscription"]

log = logging.getLogger("mcpcast.broadcast")


class CloseReason:
    """Why a subscription ended (the values are also sent to browser clients)."""

    CLOSED = "closed"  # closed by its owner (client went away, transport ended)
    OVERFLOW = "overflow"  # slow consumer: its queue overflowed
    SHUTDOWN = "shutdown"  # the broadcaster or factory was closed
    UNAUTHORIZED = "unauthorized"  # asked again, the authorize hook said no


class Subscription:
    """Frames of one topic for one consumer: ``async for frame in sub``.

    ``close()`` is synchronous so it can be called from fan-out code and ``finally``
    blocks alike; iteration ends once the subscription is closed.
    """

    __slots__ = ("_last_seq", "_maxsize", "_on_close", "_queue", "_waiter", "reason", "topic")

    def __init__(
        self,
        topic: str,
        maxsize: int,
        on_close: Callable[[Subscription], None],
        after_seq: int = 0,
    ) -> None:
        self.topic = topic
        self.reason: str | None = None
        self._maxsize = maxsize
        self._queue: deque[Frame] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._last_seq = after_seq  # frames at or below it were delivered (or skipped)
        self._on_close: Callable[[Subscription], None] | None = on_close

    @property
    def closed(self) -> bool:
        return self.reason is not None

    @property
    def last_seq(self) -> int:
        """Sequence number of the last frame handed to the consumer."""
        return self._last_seq

    @property
    def pending(self) -> int:
        return len(self._queue)

    def offer(self, frame: Frame) -> bool:
        """Queue ``frame``; drop this subscriber when its queue is full. False if closed."""
        if self.reason is not None:
            return False
        if len(self._queue) >= self._maxsize:
            log.warning(
                "dropping slow subscriber of topic %r: %d frames pending",
                self.topic,
                len(self._queue),
            )
            self.close(CloseReason.OVERFLOW)
            return False
        self._queue.append(frame)
        self._wake()
        return True

    def replay(self, frames: Iterable[Frame], after_seq: int) -> None:
        """Resume after ``after_seq``: history frames go in front of live arrivals.

        Live frames that are also in the history are skipped later by sequence number.
        """
        if self.reason is not None:
            return
        self._last_seq = after_seq
        self._queue.extendleft(reversed(list(frames)))
        while len(self._queue) > self._maxsize:
            self._queue.popleft()  # the oldest history goes first: a resume gap, not growth
        self._wake()

    def rebase(self, last_seq: int) -> None:
        """The backend's numbers went back to ``last_seq`` (its data was lost): frames
        after it are new, not duplicates of what was delivered before."""
        if last_seq < self._last_seq:
            self._last_seq = last_seq

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def _pop(self) -> Frame | None:
        while self._queue:
            frame = self._queue.popleft()
            if frame.seq > self._last_seq:
                self._last_seq = frame.seq
                return frame
        return None

    async def next(self, max_wait: float | None = None) -> Frame | None:
        """The next frame; ``None`` when ``max_wait`` seconds pass first (heartbeats).

        Raises ``StopAsyncIteration`` once the subscription is closed.
        """
        while True:
            if self.reason is not None:
                raise StopAsyncIteration
            frame = self._pop()
            if frame is not None:
                return frame
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                if max_wait is None:
                    await waiter
                else:
                    try:
                        async with asyncio.timeout(max_wait):
                            await waiter
                    except TimeoutError:
                        return None
            finally:
                self._waiter = None

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Frame:
        frame = await self.next()
        assert frame is not None  # no max_wait given
        return frame

    def close(self, reason: str = CloseReason.CLOSED) -> None:
        """End the subscription (idempotent); the first reason given is kept."""
        if self.reason is not None:
            return
        self.reason = reason
        self._queue.clear()
        self._wake()
        on_close, self._on_close = self._on_close, None
        if on_close is not None:
            on_close(self)

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
