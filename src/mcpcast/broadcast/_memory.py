"""In-process broadcast backend: the default when there is only one process."""

from __future__ import annotations

from collections import deque

from ._backend import FrameSink, ResetSink
from ._frame import Frame

__all__ = ["MemoryBackend"]


class _TopicState:
    __slots__ = ("history", "seq", "sink")

    def __init__(self) -> None:
        self.seq = 0
        self.history: deque[Frame] = deque()
        self.sink: FrameSink | None = None


class MemoryBackend:
    """Keeps sequence numbers and history in this process's memory."""

    def __init__(self) -> None:
        self._topics: dict[str, _TopicState] = {}

    def _state(self, topic: str) -> _TopicState:
        state = self._topics.get(topic)
        if state is None:
            state = self._topics[topic] = _TopicState()
        return state

    async def publish(self, topic: str, payload: str, history_size: int) -> Frame:
        state = self._state(topic)
        state.seq += 1
        frame = Frame(state.seq, payload)
        if history_size > 0:
            state.history.append(frame)
            while len(state.history) > history_size:
                state.history.popleft()
        if state.sink is not None:
            state.sink(frame)
        return frame

    async def replay(self, topic: str, after_seq: int) -> tuple[int, list[Frame]]:
        state = self._topics.get(topic)
        if state is None:
            return 0, []
        return state.seq, [f for f in state.history if f.seq > after_seq]

    async def attach(self, topic: str, sink: FrameSink,
                     on_reset: ResetSink | None = None) -> None:
        # Numbers live as long as this process: they never go back, on_reset never fires.
        self._state(topic).sink = sink

    async def detach(self, topic: str, sink: FrameSink) -> None:
        state = self._topics.get(topic)
        if state is not None and state.sink == sink:
            state.sink = None
            if state.seq == 0:
                # Never published to (e.g. a browser subscribed to a made-up name):
                # keep nothing, so such topics cannot pile up.
                del self._topics[topic]

    async def close(self) -> None:
        for state in self._topics.values():
            state.sink = None
