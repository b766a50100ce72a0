"""The registry of topics: ``lookup(name, create=True)`` (DECL-5)."""

from __future__ import annotations

from typing import Literal, overload

from .._errors import McpcastError
from ._backend import BroadcastBackend
from ._broadcaster import Broadcaster
from ._frame import MAX_MESSAGE_BYTES, validate_topic
from ._memory import MemoryBackend
from ._streaming import StreamingSession
from ._subscription import CloseReason

__all__ = ["BroadcasterFactory", "TopicLimitError"]


class TopicLimitError(McpcastError, LookupError):
    """Creating one more topic would exceed ``max_topics`` and none is idle."""


class BroadcasterFactory:
    """Creates and keeps one ``Broadcaster`` per topic name, all on one backend.

    With several processes, give each one a factory on the same Redis backend
    (``BroadcasterFactory.from_url("redis://...")``); with one, the default in-memory
    backend is enough. Topics exist per process: ``lookup(name, create=False)`` finds
    only those this process has created.
    """

    def __init__(
        self,
        backend: BroadcastBackend | None = None,
        *,
        history_size: int = 32,
        queue_size: int = 256,
        max_topics: int = 10_000,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ) -> None:
        if history_size < 0 or queue_size < 1 or max_topics < 1:
            raise ValueError("history_size must be >= 0, queue_size and max_topics >= 1")
        self.backend: BroadcastBackend = backend if backend is not None else MemoryBackend()
        self.history_size = history_size
        self.queue_size = queue_size
        self.max_topics = max_topics
        self.max_message_bytes = max_message_bytes
        self._topics: dict[str, Broadcaster] = {}
        self._closed = False

    @classmethod
    def from_url(
        cls,
        url: str | None,
        *,
        history_size: int = 32,
        queue_size: int = 256,
        max_topics: int = 10_000,
    ) -> BroadcasterFactory:
        """``None``/``""``/``"memory://"`` -> in memory; ``redis://``, ``rediss://``,
        ``unix://`` -> Redis pub/sub."""
        options = {"history_size": history_size, "queue_size": queue_size}
        if not url or url.startswith("memory:"):
            return cls(None, max_topics=max_topics, **options)
        if url.startswith(("redis://", "rediss://", "unix://")):
            from ._redis import RedisBackend  # redis is only imported when used

            return cls(RedisBackend.from_url(url), max_topics=max_topics, **options)
        raise ValueError("broadcast backend URL must start with memory:, redis:, rediss: or unix:")

    @overload
    def lookup(self, name: str, create: Literal[True] = True) -> Broadcaster: ...
    @overload
    def lookup(self, name: str, create: bool) -> Broadcaster | None: ...

    def lookup(self, name: str, create: bool = True) -> Broadcaster | None:
        """The broadcaster for ``name``; made on first use unless ``create`` is false.

        Raises ``ValueError`` for an invalid name, ``TopicLimitError`` when full.
        """
        if self._closed:
            raise RuntimeError("broadcaster factory is closed")
        found = self._topics.get(name)
        if found is not None or not create:
            return found
        validate_topic(name)
        if len(self._topics) >= self.max_topics:
            self._evict_idle()
        broadcaster = Broadcaster(
            name,
            self.backend,
            history_size=self.history_size,
            queue_size=self.queue_size,
            max_message_bytes=self.max_message_bytes,
        )
        self._topics[name] = broadcaster
        return broadcaster

    def streaming_session(
        self, name: str, *, session_id: str | None = None, timeout: float | None = 300.0
    ) -> StreamingSession:
        """A new ``StreamingSession`` on topic ``name`` (created if missing, DECL-5)."""
        return StreamingSession(self.lookup(name), session_id=session_id, timeout=timeout)

    def _evict_idle(self) -> None:
        # Forgetting a topic without local subscribers loses nothing: its sequence
        # number and history live in the backend, and held references still work.
        idle = [n for n, b in self._topics.items() if b.subscriber_count == 0]
        if not idle:
            raise TopicLimitError(f"too many topics (limit {self.max_topics})")
        for name in idle[: max(1, len(idle) // 2)]:
            del self._topics[name]

    def names(self) -> list[str]:
        """Names of the topics this process knows."""
        return list(self._topics)

    @property
    def closed(self) -> bool:
        return self._closed

    async def close(self, reason: str = CloseReason.SHUTDOWN) -> None:
        """End every subscription, then release the backend (idempotent)."""
        if self._closed:
            return
        self._closed = True
        topics, self._topics = list(self._topics.values()), {}
        for broadcaster in topics:
            await broadcaster.close(reason)
        await self.backend.close()
