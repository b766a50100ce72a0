"""Topics that tools broadcast to and browsers subscribe to (DECL-5, DECL-6, DECL-7).

``BroadcasterFactory.lookup(name)`` gives the ``Broadcaster`` of a topic; a
``StreamingSession`` streams generated text to it. Backends: in memory (one process)
or Redis pub/sub (several processes), behind the ``BroadcastBackend`` Protocol.
"""

from ._backend import BroadcastBackend, FrameSink
from ._broadcaster import Broadcaster
from ._factory import BroadcasterFactory, TopicLimitError
from ._frame import MAX_MESSAGE_BYTES, Frame, validate_topic
from ._memory import MemoryBackend
from ._streaming import StreamingSession
from ._subscription import CloseReason, Subscription
from ._text_sources import DeterministicTextSource, EchoTextSource, TextSource

__all__ = [
    "MAX_MESSAGE_BYTES",
    "BroadcastBackend",
    "Broadcaster",
    "BroadcasterFactory",
    "CloseReason",
    "DeterministicTextSource",
    "EchoTextSource",
    "Frame",
    "FrameSink",
    "MemoryBackend",
    "StreamingSession",
    "Subscription",
    "TextSource",
    "TopicLimitError",
    "validate_topic",
]
