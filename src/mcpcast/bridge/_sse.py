"""A Server-Sent Events reader over a blocking binary stream (standard library only)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

__all__ = ["Event", "iter_events"]


class _Lines(Protocol):
    def readline(self, limit: int = -1, /) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Event:
    data: str
    event: str = "message"
    id: str | None = None


def iter_events(stream: _Lines, max_line: int = 16 * 1024 * 1024) -> Iterator[Event]:
    """Yield the events of ``stream`` until it ends (comments and retry are skipped)."""
    data: list[str] = []
    event = "message"
    event_id: str | None = None
    while True:
        raw = stream.readline(max_line)
        if not raw:
            return
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line == "":
            if data:
                yield Event("\n".join(data), event, event_id)
            data, event, event_id = [], "message", None
            continue
        if line.startswith(":"):
            continue  # comment, e.g. a keep-alive
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value or "message"
        elif field == "id" and "\0" not in value:
            event_id = value
