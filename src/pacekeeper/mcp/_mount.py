"""Assemble the mcpcast Server for /mcp with the service's hook and host rules."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import urlsplit

from starlette.types import ASGIApp

from mcpcast import BroadcasterFactory, Context, Server, ServerConfig
from mcpcast.transports.subscribe import SubscriberInfo, TopicRefused
from pacekeeper.auth import Principal
from pacekeeper.backing import is_unavailable, is_unstorable_text, service_of
from pacekeeper.config import Settings
from pacekeeper.live import live_topic
from pacekeeper.mcp._activity import LiveContext, ToolActivity, summaries
from pacekeeper.mcp._caller import caller_injectors
from pacekeeper.mcp._gate import judge, make_authenticate, make_check_scopes, origin_key
from pacekeeper.mcp._logs import install_access_log_filter
from pacekeeper.mcp._tools import PacekeeperTools
from pacekeeper.metrics import RATE_LIMITED
from pacekeeper.services import Services

_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
TOPICS_ROUTE = "/mcp/topics/{topic}"  # the route label of a refused feed (metrics)


def _host_rules(settings: Settings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    # DNS-rebinding protection (MCP-8): loopback plus the public base URL's host.
    parts = urlsplit(settings.public_base_url)
    hosts = list(_LOOPBACK_HOSTS)
    origins = [f"{scheme}://{h}" for scheme in ("http", "https") for h in _LOOPBACK_HOSTS]
    if parts.hostname:
        host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
        hosts.append(host.lower())
        origins.append(f"{parts.scheme}://{host}".lower())
    if settings.host not in ("0.0.0.0", "::", "") and settings.host not in hosts:
        hosts.append(settings.host.lower())
    return tuple(hosts), tuple(origins)


def _same_origins(settings: Settings) -> frozenset[str]:
    """The exact origins (scheme, host, port) of this service's own pages: the public
    base URL, and its loopback aliases on the same port when it is served on loopback.
    Cookie callers must come from one of them (cookies ignore the port)."""
    base = origin_key(settings.public_base_url)
    if base is None:
        return frozenset()
    origins = {base}
    parts = urlsplit(base)
    host = f"[{parts.hostname}]" if parts.hostname and ":" in parts.hostname else parts.hostname
    if host in _LOOPBACK_HOSTS:
        port = f":{parts.port}" if parts.port else ""
        origins |= {f"{parts.scheme}://{alias}{port}" for alias in _LOOPBACK_HOSTS}
    return frozenset(origins)


def _session_owner(principal: Principal) -> uuid.UUID:
    # A session belongs to the user, whichever of their tokens (login JWT, OAuth) made it.
    return principal.user_id


def _topic_owner_only(services: Callable[[], Services], same_origins: frozenset[str],
                      activity: ToolActivity) -> Callable[[SubscriberInfo, str], Any]:
    """Browser topics (`/mcp/topics/<topic>`): a person may subscribe to their own live
    topic and to nothing else, with the session cookie (from one of this service's own
    origins) or a bearer token (the WebSocket subprotocol). Anything else is 403.

    An open feed is asked again before each event and heartbeat (`topic_recheck=0`), with
    the credential that opened it and without charging the tenant's bucket: a logout, a
    disable (ACC-8) or a revoked grant ends it before anything more goes out."""

    async def authorize(info: SubscriberInfo, topic: str) -> bool:
        verdict = await judge(services(), "GET", info.headers, same_origins,
                              charge=not info.recheck)
        if isinstance(verdict, Principal) and topic == live_topic(verdict.user_id):
            if verdict.rate is not None and not verdict.rate.allowed:
                # Opening a feed is a request like any other: an empty tenant bucket
                # refuses it (429), else opens would be unbounded for a signed-in caller.
                if info.method == "WEBSOCKET":  # an SSE 429 is counted with HTTP's
                    RATE_LIMITED.labels(TOPICS_ROUTE).inc()
                raise TopicRefused(429, "rate limit exceeded")
            if not info.recheck:
                activity.watching(verdict.user_id)  # their assistants' calls are shown now
            return True
        return False

    return authorize


def _unavailable_message(exc: Exception) -> str | None:
    """A tool that met PostgreSQL or Redis out of reach: what the model reads (retry),
    with no traceback in the log (the HTTP routes answer 503 for the same); or text the
    database cannot store (a NUL, refused by PostgreSQL: the routes answer 400)."""
    if is_unstorable_text(exc):
        return "text must not contain NUL characters"
    if is_unavailable(exc):
        return f"a backing service ({service_of(exc)}) is unavailable; retry shortly"
    return None


def build_mcp(settings: Settings, services: Callable[[], Services],
              broadcasters: BroadcasterFactory | None = None
              ) -> tuple[Server, ASGIApp, frozenset[str]]:
    """The server, its ASGI transport, and the origins a cookie caller must come from
    (what the `/mcp` edge, `_edge.McpEdge`, needs beside the transport)."""
    hosts, origins = _host_rules(settings)
    same_origins = _same_origins(settings)
    install_access_log_filter()  # session ids in URLs never reach the access log
    # Tool calls counted (/metrics) and, for a person watching, shown on their Live panel
    # with the progress lines tools send (LiveContext).
    activity = ToolActivity(services, everywhere=bool(settings.redis_url))
    injectors = caller_injectors(services)  # tools name `caller: Principal`, `owner: Owner`
    injectors[Context] = lambda ex, args: LiveContext(ex, activity)
    server = Server(
        PacekeeperTools(services),
        config=ServerConfig(path="/mcp", allowed_hosts=hosts, allowed_origins=origins,
                            topic_recheck=0.0, expected_failure=_unavailable_message,
                            # Each person's feed is one topic: a per-person cap.
                            max_streams_per_topic=settings.live_feeds_per_user),
        authenticate=make_authenticate(services, same_origins),
        identify=_session_owner,
        check_scopes=make_check_scopes(services),
        broadcasters=broadcasters,
        authorize_topic=_topic_owner_only(services, same_origins, activity),
        observe_tool=activity,
        injectors=injectors,
    )
    activity.summaries = summaries({n: t.listing for n, t in server.registry.tools.items()})
    # mcpcast types its ASGI callables with plain dicts; Starlette's are Mappings.
    return server, cast(ASGIApp, server.asgi_app()), same_origins


__all__ = ["build_mcp"]
