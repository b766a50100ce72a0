"""The small Protocol every broadcast backend implements (memory, Redis, ...)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ._frame import Frame

__all__ = ["BroadcastBackend", "FrameSink", "ResetSink"]

#: Called (synchronously, on the event loop) with every frame published to a topic.
FrameSink = Callable[[Frame], None]
#: Called with the topic's last sequence number when the backend may have lost its
#: numbers (a Redis that restarted without persistence starts again at 1).
ResetSink = Callable[[int], None]


class BroadcastBackend(Protocol):
    """Assigns sequence numbers, keeps history and fans frames out to attached sinks.

    Sequence numbers are per topic, start at 1 and increase by one per publish across
    every process sharing the backend. History keeps the last ``history_size`` frames.
    """

    async def publish(self, topic: str, payload: str, history_size: int) -> Frame:
        """Give ``payload`` the topic's next sequence number, record and deliver it."""
        ...

    async def replay(self, topic: str, after_seq: int) -> tuple[int, list[Frame]]:
        """Return the topic's last sequence number and the kept frames after ``after_seq``."""
        ...

    async def attach(self, topic: str, sink: FrameSink,
                     on_reset: ResetSink | None = None) -> None:
        """Start delivering the topic's frames to ``sink`` (one sink per topic); tell
        ``on_reset`` the topic's last number whenever the numbers may have gone back."""
        ...

    async def detach(self, topic: str, sink: FrameSink) -> None:
        """Stop delivering the topic's frames to ``sink`` (no-op if another is attached)."""
        ...

    async def close(self) -> None:
        """Release connections and tasks; the backend is unusable afterwards."""
        ...
