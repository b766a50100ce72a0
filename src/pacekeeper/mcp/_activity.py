"""What assistants are doing, on the person's live topic (issue 17, the Live panel).

mcpcast tells `ToolActivity` of every `tools/call` as it starts and ends
(`Server(observe_tool=...)`, with the caller's principal), and a tool's progress and log
messages go through `LiveContext` (pacekeeper's `Context` injector). Each becomes one
`tool` event on the caller's own topic (`pacekeeper.live`):

    {"type": "tool", "id": <call id>, "phase": "started" | "progress" | "ended",
     "tool": <name>, "summary": <the tool's title or first sentence>,
     "assistant": <OAuth client's name | API key's label | "A sign-in token">,
     "outcome": "ok" | "error" | "rejected", "ms": <duration>,       (ended)
     "message": <text>, "progress": n, "total": n}                   (progress)

Never the arguments, a result, a secret or a token. Only assistants' calls count (an
OAuth client, an API key, a bearer token): the person's own browser (the cookie) is not
an assistant.

Cost: a call by someone who never opened their Live panel in this process costs a set
look-up (none at all while nobody has); for one who has, whether their topic has a
subscriber now. With Redis (`PACEKEEPER_REDIS_URL`) a watcher may be in another
process, so events are always queued. Publishing never slows or fails a call: events go into a
bounded queue drained by one task; a full queue or a failed publish drops the event
and counts it (`pacekeeper_live_events_dropped`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import itertools
import logging
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcpcast import BroadcasterFactory, Context
from mcpcast.protocol.exchange import Exchange
from pacekeeper.auth import Principal
from pacekeeper.live import live_topic
from pacekeeper.metrics import LIVE_DROPPED, tool_observed
from pacekeeper.services import Services

log = logging.getLogger("pacekeeper.live")
QUEUE_SIZE = 256
_MESSAGE_CHARS = 200  # a progress or log line, cut: the panel shows one line
_NAMES_KEPT = 1024


@dataclass(slots=True)
class _Call:
    id: str
    tool: str
    principal: Principal


# The call being run in this task: set as a watched call starts, read by its progress
# messages and by its end (the observer is called twice in the same task).
_current: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "pacekeeper_tool_call", default=None)


@functools.lru_cache(maxsize=4096)
def _topic(user_id: uuid.UUID) -> str:
    return live_topic(user_id)


def summaries(listings: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each tool's short description: its title, else its description's first sentence."""
    found = {}
    for name, listing in listings.items():
        text = listing.get("title") or re.split(r"(?<=\.)\s", listing.get("description", ""))[0]
        found[name] = text[:120]
    return found


class ToolActivity:
    """The tool observer: metrics for every call, live events for watched assistants."""

    def __init__(self, services: Callable[[], Services], queue_size: int = QUEUE_SIZE, *,
                 everywhere: bool = False) -> None:
        self._services = services
        self._queue_size = queue_size
        # Topics on Redis: a watcher may be in another process, so every call is queued.
        self._everywhere = everywhere
        # Who has opened their live topic in this process (told by the topic hook): the
        # only people whose calls are looked at further. Kept, never pruned: one entry
        # per person, and dropping one could race with a subscription being made.
        self._seen: set[uuid.UUID] = set()
        self.summaries: dict[str, str] = {}
        self._ids = itertools.count(1)
        self._queue: asyncio.Queue[tuple[Principal, dict[str, Any]]] | None = None
        self._drain: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._names: dict[str, str] = {}
        self.dropped = 0

    # ------------------------------------------------------------ on the call's path

    def __call__(self, tool: str, outcome: str, seconds: float, principal: Any) -> None:
        if outcome == "started":
            if self._seen or self._everywhere:  # else nobody has ever watched: done
                self._started(tool, principal)
            return
        tool_observed(tool, outcome, seconds)
        ended = _current.get()
        if ended is not None:
            _current.set(None)
            if ended.tool == tool and ended.principal is principal:
                self._emit(ended, {"phase": "ended", "outcome": outcome,
                                   "ms": round(seconds * 1000)})

    def _started(self, tool: str, principal: Any) -> None:
        # Assistants only: the person's own browser (the cookie) is not one.
        if type(principal) is Principal and principal.via != "cookie" and self._watched(
                principal):
            call = _Call(f"{next(self._ids)}", tool, principal)
            _current.set(call)
            self._emit(call, {"phase": "started"})

    def progress(self, message: str | None, progress: float | None = None,
                 total: float | None = None) -> None:
        """A watched call's progress or log line (from `LiveContext`)."""
        call = _current.get()
        if call is None:
            return
        note: dict[str, Any] = {"phase": "progress"}
        if message:
            note["message"] = message[:_MESSAGE_CHARS]
        if progress is not None:
            note["progress"] = progress
            if total is not None:
                note["total"] = total
        self._emit(call, note)

    def watching(self, user_id: uuid.UUID) -> None:
        """`user_id` was let subscribe to their live topic in this process."""
        self._seen.add(user_id)

    def _watched(self, principal: Principal) -> bool:
        if self._everywhere:
            return True
        if principal.user_id not in self._seen:  # most calls end here
            return False
        try:
            live = self._services().live
            if live is None:
                return False
            factory: BroadcasterFactory = live.broadcasters
            found = factory.lookup(_topic(principal.user_id), create=False)
        except Exception:  # not started yet, or shutting down: nobody is watching
            return False
        return found is not None and found.subscriber_count > 0

    def _emit(self, call: _Call, fields: dict[str, Any]) -> None:
        event = {"type": "tool", "id": call.id, "tool": call.tool,
                 "summary": self.summaries.get(call.tool, call.tool), **fields}
        try:
            loop = asyncio.get_running_loop()
            if self._loop is not loop:  # first use, or a new event loop (tests, restarts)
                self._loop, self._queue = loop, asyncio.Queue(self._queue_size)
                # Started by a call, it outlives it: an empty context, or every later
                # event's look-ups would join the first call's trace and request id.
                self._drain = loop.create_task(self._run(self._queue),
                                               context=contextvars.Context())
            assert self._queue is not None
            self._queue.put_nowait((call.principal, event))
        except asyncio.QueueFull:
            self._dropped("full")
        except Exception:  # never the call's problem
            self._dropped("error")

    def _dropped(self, reason: str) -> None:
        self.dropped += 1
        LIVE_DROPPED.labels(reason).inc()

    # ------------------------------------------------------------ off the call's path

    async def _run(self, queue: asyncio.Queue[tuple[Principal, dict[str, Any]]]) -> None:
        while True:
            principal, event = await queue.get()
            try:
                live = self._services().live
                if live is None:
                    continue
                event["assistant"] = await self._assistant(principal)
                await live.broadcasters.lookup(live_topic(principal.user_id)).broadcast(event)
            except Exception as exc:  # the feed is best effort: never the call's problem
                self._dropped("error")
                log.warning("live tool event dropped: %s", type(exc).__name__)

    async def _assistant(self, principal: Principal) -> str:
        """The caller's name for the person: the OAuth client's or the API key's."""
        claims = principal.claims
        if principal.via == "api_key":
            key = claims.jti.removeprefix("apikey:")
            return await self._name(f"k:{key}", lambda: self._key_label(key), "An API key")
        if claims.client_id:
            client_id = claims.client_id
            return await self._name(f"c:{client_id}", lambda: self._client_name(client_id),
                                    "An assistant")
        return "A sign-in token"  # a login JWT used as a bearer token

    async def _name(self, cache_key: str, fetch: Callable[[], Any], fallback: str) -> str:
        found = self._names.get(cache_key)
        if found is None:
            found = (await fetch()) or fallback
            if len(self._names) >= _NAMES_KEPT:
                self._names.clear()
            self._names[cache_key] = found
        return found

    async def _key_label(self, key_id: str) -> str | None:
        key = await self._services().api_keys.store.get(key_id)
        return None if key is None else f"API key “{key.name}”"

    async def _client_name(self, client_id: str) -> str | None:
        oauth = self._services().oauth
        client = None if oauth is None else await oauth.server.client(client_id)
        return None if client is None else client.client_name

    async def close(self) -> None:
        if self._drain is not None:
            self._drain.cancel()
            await asyncio.gather(self._drain, return_exceptions=True)


class LiveContext(Context):
    """mcpcast's `Context`, whose progress and log lines also reach the Live panel."""

    __slots__ = ("_activity",)

    def __init__(self, exchange: Exchange, activity: ToolActivity) -> None:
        super().__init__(exchange)
        self._activity = activity

    async def report_progress(self, progress: float, total: float | None = None,
                              message: str | None = None) -> None:
        self._activity.progress(message, progress, total)
        await super().report_progress(progress, total, message)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        await super().log(level, data, logger)
        if isinstance(data, str):
            self._activity.progress(data)


__all__ = ["LiveContext", "ToolActivity", "summaries"]
