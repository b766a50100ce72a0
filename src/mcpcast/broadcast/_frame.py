"""One broadcast frame: a message plus its per-topic sequence number.

A frame's payload is encoded to JSON once, at broadcast time, and the same immutable
object is shared by every subscriber queue, so fan-out costs one pointer per subscriber.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = ["MAX_MESSAGE_BYTES", "Frame", "encode_message", "validate_topic"]

#: Largest encoded message a broadcaster accepts (bigger ones raise ``ValueError``).
MAX_MESSAGE_BYTES = 1024 * 1024

# Topic names end up in URLs and Redis keys: keep them to a safe, bounded alphabet.
_TOPIC_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}")


def validate_topic(name: str) -> str:
    """Return ``name`` if it is a valid topic name, else raise ``ValueError``."""
    if not isinstance(name, str) or _TOPIC_RE.fullmatch(name) is None:
        raise ValueError(
            "invalid topic name: use 1-128 characters from A-Z a-z 0-9 . _ : @ - "
            "starting with a letter or digit"
        )
    return name


def encode_message(message: str | dict[str, Any], limit: int = MAX_MESSAGE_BYTES) -> str:
    """Encode a broadcast message to JSON text; ``TypeError``/``ValueError`` on bad input."""
    if not isinstance(message, str | dict):
        raise TypeError(f"a broadcast message must be str or dict, not {type(message).__name__}")
    try:
        raw = orjson.dumps(message)
    except TypeError as exc:  # orjson raises its own JSONEncodeError, a TypeError
        raise TypeError(f"message is not JSON-serialisable: {exc}") from None
    if len(raw) > limit:
        raise ValueError(f"message of {len(raw)} bytes exceeds the limit of {limit} bytes")
    return raw.decode()


@dataclass(frozen=True, slots=True)
class Frame:
    """A delivered message: ``seq`` increases by one per broadcast on a topic."""

    seq: int
    payload: str  # the message as JSON text

    @property
    def message(self) -> Any:
        """The decoded message (a ``str`` or a ``dict``)."""
        return orjson.loads(self.payload)

    def to_json(self, topic: str) -> str:
        """The frame as the JSON object browser clients receive."""
        name = orjson.dumps(topic).decode()
        return f'{{"type":"message","topic":{name},"seq":{self.seq},"data":{self.payload}}}'

    def to_wire(self) -> str:
        """Compact form used between processes: ``"<seq> <payload>"``."""
        return f"{self.seq} {self.payload}"

    @classmethod
    def from_wire(cls, wire: str | bytes) -> Frame:
        text = wire.decode() if isinstance(wire, bytes) else wire
        seq, _, payload = text.partition(" ")
        return cls(int(seq), payload)
