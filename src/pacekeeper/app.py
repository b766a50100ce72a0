"""The ASGI application: routes, error handlers, start-up (migrations, keys, admin).

Starlette rather than FastAPI: the spec fixes every path and every error body, and 422
is never used, so FastAPI's request models and default validation responses would have
to be switched off route by route; mcpcast is plain ASGI and mounts as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from pacekeeper import http, logredact, memory, metrics, ops
from pacekeeper.auth import KeyGenerator, generate_rsa_key
from pacekeeper.config import Settings
from pacekeeper.connections import SANDBOX_PATH, provider_setup
from pacekeeper.errors import ApiError
from pacekeeper.http import BodyLimitMiddleware, SecurityHeadersMiddleware
from pacekeeper.http.a2a import a2a_routes
from pacekeeper.http.account import (
    change_password,
    delete_account,
    export_account,
    list_assistants,
    revoke_assistant,
)
from pacekeeper.http.admin import admin_routes
from pacekeeper.http.analysis import analysis_routes
from pacekeeper.http.apikeys import delete_key, keys_collection
from pacekeeper.http.connections import connection_routes
from pacekeeper.http.fitness import IMPORT_PATH, fitness_routes
from pacekeeper.http.gear import gear_routes
from pacekeeper.http.imports import IMPORTS_PATH, import_routes
from pacekeeper.http.records import records_routes
from pacekeeper.http.webhooks import webhook_body_limits, webhook_routes
from pacekeeper.http.workouts import workout_routes
from pacekeeper.jobs import stop_worker
from pacekeeper.live import live_broadcasters
from pacekeeper.mcp import McpEdge, build_mcp
from pacekeeper.oauth2 import oauth2_routes
from pacekeeper.ratelimit import RateLimiter
from pacekeeper.services import Clock, Services, build_services, utc_now
from pacekeeper.spans import background_span
from pacekeeper.web.connections import dashboard_routes
from pacekeeper.web.routes import web_routes

log = logging.getLogger("pacekeeper")
_HOUSEKEEPING_SECONDS = 60.0
_GAUGE_SECONDS = 5.0
# The hot path's samples reach prometheus-client's store this often (metrics.Tally): what
# another process's /metrics may lag by (multiprocess mode).
_TALLY_SECONDS = 1.0


async def _housekeeping(services: Services) -> None:
    """Pick up keys rotated elsewhere and rotate on schedule."""
    while True:
        await asyncio.sleep(_HOUSEKEEPING_SECONDS)
        try:
            with background_span("housekeeping"):  # one trace a round, not a statement
                await _housekeeping_round(services)
        except Exception as exc:  # keep the loop alive; the next round retries
            log.error("housekeeping failed: %s", type(exc).__name__)


async def _housekeeping_round(services: Services) -> None:
    await services.keys.reload()
    kid = await services.keys.rotate_if_due()
    if kid is not None:
        log.info("scheduled key rotation: new signing key %s", kid)
    if services.connections is not None:
        await services.connections.purge(services.clock())


_heap_frozen = False


def _freeze_startup_heap() -> None:
    """Move what start-up built (modules, classes, settings, keys) out of the collector's
    view, once per process: a full collection otherwise walks all of it and stalls the
    event loop for 50-80 ms every few seconds under load (the p99 of /mcp). The objects
    live as long as the process anyway; garbage from start-up is collected first."""
    global _heap_frozen
    if not _heap_frozen:
        _heap_frozen = True
        gc.collect()
        gc.freeze()


class _Service(Starlette):
    """Starlette with the security headers outermost: `middleware=[...]` would sit inside
    Starlette's error middleware, and its 500 answers would go out without them.

    An HTTP request for `/mcp`, the hot path, goes from `__call__` straight to its one
    layer (`pacekeeper.mcp._edge`), never through the stack: the body limit exempts
    `/mcp` and no route exception handler applies to it (the edge and mcpcast answer
    their own errors), so the router's matching and the middleware would only add work
    (issue 19), and a second route would have to be kept equal to the first (issue 29).
    WebSockets and every other path take the whole stack.
    """

    def __init__(self, *, production: bool, mcp: Callable[..., McpEdge] | None = None,
                 **kwargs: Any) -> None:
        self._production = production
        self._mcp = mcp  # the edge, given the stack's headers, metrics and handlers
        self.mcp_edge: McpEdge | None = None  # built with the middleware stack
        super().__init__(**kwargs)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.middleware_stack is None:
            self.middleware_stack = self.build_middleware_stack()
        edge = self.mcp_edge
        if edge is not None and scope["type"] == "http" and (
                scope["path"] == "/mcp" or scope["path"] == scope.get("root_path", "") + "/mcp"):
            # The hot path, straight from here: not through Starlette's own call either.
            # (Behind a root path, servers differ on whether `path` includes it.)
            scope["app"] = self
            await edge(scope, receive, send)
            return
        if scope["type"] == "lifespan":
            send = ops.quiet_lifespan_failures(send)
        await super().__call__(scope, receive, send)

    def build_middleware_stack(self) -> ASGIApp:
        # Observation outside the error middleware too: a 500 is counted and timed.
        observed = ops.ObserveMiddleware(super().build_middleware_stack())
        full = SecurityHeadersMiddleware(observed, production=self._production)
        if self._mcp is not None:
            self.mcp_edge = self._mcp(
                always=full.always, metrics=observed.children,
                unavailable=http.unavailable_handler,
                internal=self.exception_handlers[Exception])
        return full


def create_app(
    settings: Settings | None = None,
    *,
    clock: Clock = utc_now,
    keygen: KeyGenerator = generate_rsa_key,
    limiter: RateLimiter | None = None,
    provider_transport: httpx.AsyncBaseTransport | None = None,
) -> Starlette:
    settings = settings or Settings()
    # ERR-3: no secret in any log line, uvicorn's access log included (issue 20, #14).
    logredact.install()
    memory.fix_mmap_threshold()  # freed large blocks go back to the system (issue 30)
    # PROV-7: bad provider settings (e.g. an http redirect URI off localhost) stop start-up.
    providers = provider_setup(settings, os.environ)
    limit = settings.max_body_bytes
    state: dict[str, Services] = {}

    def current_services() -> Services:
        return state["services"]

    # One set of topics for the MCP server (browsers subscribe there) and the services
    # (syncs and imports publish there): pacekeeper.live.
    broadcasters = live_broadcasters(settings)
    mcp_server, transport, same_origins = build_mcp(settings, current_services, broadcasters)
    readiness = ops.Readiness()
    ops.configure_tracing()  # OTLP export when OTEL_EXPORTER_OTLP_* is set

    async def drain() -> None:
        # Shutting down: out of the proxy's rotation, open streams told to reconnect.
        readiness.draining = True
        drain_streams = getattr(transport, "drain", None)
        if drain_streams is not None:
            await drain_streams()

    async def gauges() -> None:
        rounds = max(1, round(_GAUGE_SECONDS / _TALLY_SECONDS))
        while True:
            http.update_gauges(mcp_server, getattr(transport, "open_streams", 0))
            for _ in range(rounds):
                await asyncio.sleep(_TALLY_SECONDS)
                metrics.TALLY.flush()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        services = await build_services(
            settings, clock=clock, keygen=keygen, limiter=limiter,
            providers=providers, provider_transport=provider_transport,
            broadcasters=broadcasters,
        )  # fmt: skip
        app.state.services = services
        app.state.readiness = readiness
        state["services"] = services
        _freeze_startup_heap()
        task = asyncio.create_task(_housekeeping(services))
        gauge_task = asyncio.create_task(gauges())
        lag_task = asyncio.create_task(ops.watch_loop_lag())
        forget_drain = ops.drain_on_signal(drain)
        jobs = services.jobs
        # PACEKEEPER_WORKER=off: on PostgreSQL the jobs are left to `pacekeeper worker`
        # processes; with SQLite (in-memory queue) they then wait unrun (tests only).
        worker = (jobs.start_worker(services)
                  if jobs is not None and settings.worker == "embedded" else None)
        if jobs is not None:
            # Activities an older engine computed are re-derived in the background
            # (fitness/_engine.py); a database that cannot be reached now is not fatal.
            try:
                await jobs.enqueue_rederive()
            except Exception as exc:
                log.warning("could not queue the re-derivation: %s", type(exc).__name__)
        try:
            yield
        finally:
            forget_drain()
            readiness.draining = True
            for background in (task, gauge_task, lag_task):
                background.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await background
            if worker is not None:
                await stop_worker(worker)  # running jobs get the shutdown grace to finish
            mcp_server.sessions.close()
            await mcp_server.stop_tasks()  # a sync running as a task ends before the DB
            await services.close()
            ops.shutdown_tracing()
            metrics.TALLY.flush()
            if metrics.MULTIPROCESS:  # this process's live gauges leave the sums
                from prometheus_client import multiprocess

                multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]

    routes: list[BaseRoute] = [
        # HTTP requests for /mcp never reach the router (_Service: the edge serves them).
        WebSocketRoute("/mcp", transport),
        # The person's live topic (pacekeeper.live) and mcpcast's browser client.
        Route("/mcp/topics/{topic}", transport, methods=["GET", "OPTIONS"]),
        WebSocketRoute("/mcp/topics/{topic}", transport),
        Route("/mcp/mcpcast.js", transport, methods=["GET"]),
        Route("/health", http.health, methods=["GET"]),
        Route("/ready", http.ready, methods=["GET"]),
        Route("/metrics", http.metrics_endpoint, methods=["GET"]),
        Route("/openapi.json", http.openapi, methods=["GET"]),
        Route("/api/auth/register", http.register, methods=["POST"]),
        Route("/oauth/token", http.password_grant, methods=["POST"]),
        Route("/api/auth/refresh", http.refresh, methods=["POST"]),
        Route("/api/auth/logout", http.logout, methods=["POST"]),
        Route("/oauth2/jwks", http.jwks, methods=["GET"]),
        Route("/admin/jwks", http.jwks, methods=["GET"]),
        Route("/api/account", delete_account, methods=["DELETE"]),
        Route("/api/account/password", change_password, methods=["POST"]),
        Route("/api/account/export", export_account, methods=["GET"]),
        Route("/api/account/assistants", list_assistants, methods=["GET"]),
        Route("/api/account/assistants/{client_id:path}", revoke_assistant, methods=["DELETE"]),
        Route("/api/keys", keys_collection, methods=["GET", "POST"]),
        Route("/api/keys/{key_id}", delete_key, methods=["DELETE"]),
        *admin_routes(),
        *fitness_routes(),
        *workout_routes(),
        *gear_routes(),
        *records_routes(),
        *import_routes(),
        *analysis_routes(mcp_server),
        *a2a_routes(mcp_server),
        *oauth2_routes(),
        *connection_routes(),
        *webhook_routes(),
        *dashboard_routes(),
        *web_routes(),
    ]
    if providers.sandbox:
        # Development only (never in production): the provider emulator, so every
        # provider can be connected without credentials.
        from starlette.requests import Request

        from pacekeeper.providers.sandbox import create_sandbox_app

        async def sandbox_admin(request: Request) -> bool:
            # Anyone can reach the mounted sandbox: its control panel (reset, revoke,
            # failures, quotas, uploads) needs an admin JWT of this service (issue 20,
            # #15), and from a cookie session the CSRF header on writes (the one check).
            try:
                principal = await current_services().resolver.require(
                    request.method, request.headers)
            except ApiError:
                return False
            return principal.is_admin

        # Its consent pages redirect only to the service's own provider callbacks.
        callbacks = tuple(p.redirect_uri for p in providers.settings.values())
        routes.append(Mount(SANDBOX_PATH, app=create_sandbox_app(
            admin_check=sandbox_admin, history_days=settings.sandbox_history_days,
            redirect_uris=callbacks)))
    return _Service(
        production=settings.is_production,
        mcp=functools.partial(McpEdge, transport, current_services, same_origins),
        routes=routes,
        middleware=[
            # A multipart file upload carries its form framing on top of the file.
            # Each provider webhook has its own (from the registry: Garmin's is 8 MiB).
            Middleware(BodyLimitMiddleware, max_bytes=limit, exempt=("/mcp",),
                       overrides={IMPORT_PATH: settings.max_import_bytes + 64 * 1024,
                                  IMPORTS_PATH: settings.max_export_bytes + 64 * 1024,
                                  **webhook_body_limits()})
        ],
        lifespan=lifespan,
        exception_handlers={
            ApiError: http.api_error_handler,
            HTTPException: http.http_error_handler,
            **dict.fromkeys(http.UNAVAILABLE, http.unavailable_handler),
            Exception: http.internal_error_handler,
        },
    )


__all__ = ["create_app"]
