"""``ServerConfig``: every limit and switch of a server, with the defaults of the spec."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

DEFAULT_PUBLIC_METHODS = frozenset({
    "initialize", "notifications/initialized", "server/discover", "ping", "tools/list",
    "prompts/list", "resources/list", "resources/templates/list", "completion/complete",
    "logging/setLevel", "notifications/cancelled", "notifications/progress",
    "notifications/roots/list_changed", "subscriptions/listen", "resources/subscribe",
    "resources/unsubscribe",
})


@dataclass(frozen=True)
class ServerConfig:
    """Configuration of one server. Injectable into tools by annotating a parameter with it.

    ``path`` defaults to the ``@mcp_server`` path. ``allowed_hosts`` / ``allowed_origins``
    protect against DNS rebinding: by default only loopback names are accepted, with any
    port; list your public host names when serving behind a proxy, or ``["*"]`` to turn
    the check off. ``response_mode`` ``"auto"`` answers with plain JSON unless the call
    sends something before its result (progress, a log line, an elicitation), in which
    case the response becomes an SSE stream.

    Long-lived connections (WebSocket, the older HTTP+SSE stream): every
    ``heartbeat_interval`` seconds the server sends a heartbeat (a JSON-RPC ``ping`` on a
    WebSocket, a comment line on SSE); a WebSocket peer that does not answer within
    ``heartbeat_timeout`` is closed as dead. A connection with no client message and no
    running request for ``idle_timeout`` seconds is closed (0 turns that off). Each
    connection queues at most ``send_queue_size`` outgoing messages; a client that reads
    slower than that is dropped. ``max_streams`` bounds all open streaming connections.

    Handshake-era sessions: at most ``max_sessions`` in all, ``max_sessions_per_principal``
    per authenticated caller (its least recently used idle session makes room; 0: no
    bound) and ``anonymous_sessions_per_minute`` new anonymous sessions per client address
    (a token bucket with that burst; 0: no bound; behind a proxy, let the ASGI server set
    the client address from the forwarding headers). A full table evicts the least
    recently used idle anonymous session for an authenticated caller.
    """

    path: str | None = None
    stateless: bool = False
    response_mode: Literal["auto", "json", "sse"] = "auto"
    max_body_bytes: int = 4 * 1024 * 1024
    max_batch: int = 100
    tool_timeout: float = 60.0
    client_request_timeout: float = 300.0
    session_ttl: float = 3600.0
    max_sessions: int = 10_000
    max_sessions_per_principal: int = 100
    anonymous_sessions_per_minute: int = 60
    max_streams: int = 10_000
    page_size: int = 50
    heartbeat_interval: float = 15.0
    heartbeat_timeout: float = 10.0
    idle_timeout: float = 900.0
    send_queue_size: int = 256
    sse_retry_ms: int = 1000
    event_store_size: int = 256
    event_store_streams: int = 16
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")
    allowed_origins: tuple[str, ...] = ("http://127.0.0.1", "http://localhost", "http://[::1]",
                                        "https://127.0.0.1", "https://localhost", "https://[::1]")
    public_methods: frozenset[str] = field(default=DEFAULT_PUBLIC_METHODS)
    # Sync tools, resources and prompts: run on the event loop while each call stays
    # under inline_sync_budget seconds (no thread hop: as fast as async); after one call
    # that took longer, that method always runs in a worker thread so it cannot stall the
    # loop again. inline_sync_budget=0 sends every sync call to a thread at once;
    # sync_tools_in_thread=False runs them all on the loop.
    sync_tools_in_thread: bool = True
    inline_sync_budget: float = 0.002
    # 2026-07-28: caching hints on list/read/discover results, and round-trip state.
    cache_ttl_ms: int = 0
    cache_scope: Literal["public", "private"] = "private"
    state_secret: bytes | None = None  # share it between processes serving one client
    state_ttl: float = 600.0
    # Tasks extension: how long an ended task stays readable, the poll interval clients
    # are told, how long a task's tool may run, and how many may run per caller at once.
    task_ttl_ms: int = 3_600_000
    task_poll_interval_ms: int = 1000
    task_timeout: float = 3600.0
    max_running_tasks_per_principal: int = 16
    # Browser topics: once a stream is open, ask ``authorize_topic`` again before the
    # next frame or heartbeat when this many seconds have passed since it last said yes
    # (0: before every one); a no ends the stream ("unauthorized"). None: asked once.
    topic_recheck: float | None = None
    # Browser topics: at most this many open streams per topic in one process (the next
    # is refused with 429); None: bounded by ``max_streams`` only.
    max_streams_per_topic: int | None = None
    # A failure a tool may meet at times and the server expects (a database or cache out
    # of reach): a callable that returns the message the model reads for it, or None for
    # anything else. A named failure is one warning line; any other stays an internal
    # error with its traceback in the log.
    expected_failure: Callable[[Exception], str | None] | None = None
