"""The person's live feed: events about their own data, broadcast to their own topic.

Each person has one mcpcast topic, `user.<user id>`; the web app's Live panel subscribes
to it over `/mcp/topics/<topic>` (WebSocket, SSE as the fallback) with the session
cookie, and only its owner may (the `authorize_topic` hook of `pacekeeper.mcp`).
Events are small JSON objects with a `type`:

- `sync`: a provider sync started, moved on (`done` of `total` `unit`) or ended
  (`status` done, paused or failed, with the report's counts);
- `activity`: an activity was stored (by a sync or a file import), in the activity
  list's shape (`pacekeeper.fitness.activity_event`).

One factory per process (`live_broadcasters`): in memory, or on Redis when
`PACEKEEPER_REDIS_URL` is set, so a `pacekeeper worker` process reaches the browsers
connected to a server process. A failed publish is logged and dropped: a live view is
a convenience, never a reason for a sync or an import to fail.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from mcpcast import BroadcasterFactory
from pacekeeper.config import Settings

log = logging.getLogger("pacekeeper.live")
TOPIC_PREFIX = "user."


def live_topic(user_id: uuid.UUID) -> str:
    return f"{TOPIC_PREFIX}{user_id}"


def live_broadcasters(settings: Settings) -> BroadcasterFactory:
    """This process's topics: on Redis when configured (every process sees every event),
    else in memory (one process: the server with its embedded worker)."""
    return BroadcasterFactory.from_url(settings.redis_url or None, history_size=64)


class LiveFeed:
    def __init__(self, broadcasters: BroadcasterFactory) -> None:
        self.broadcasters = broadcasters

    async def publish(self, user_id: uuid.UUID, event: dict[str, Any]) -> None:
        try:
            await self.broadcasters.lookup(live_topic(user_id)).broadcast(event)
        except Exception as exc:  # the backend is down or closing: the feed is best effort
            log.warning("live event dropped: %s", type(exc).__name__)


__all__ = ["TOPIC_PREFIX", "LiveFeed", "live_broadcasters", "live_topic"]
