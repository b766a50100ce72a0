"""Running the service: readiness, metrics, logs, traces, graceful shutdown, workers
(docs/deploy.md). The /ready and /metrics routes are the HTTP layer's (`pacekeeper.http.ops`)."""

from pacekeeper.ops._context import choose_request_id, request_id
from pacekeeper.ops._logging import JsonFormatter, configure_logging, log_config
from pacekeeper.ops._loop_lag import watch_loop_lag
from pacekeeper.ops._observe import (
    HttpMetrics,
    ObserveMiddleware,
    finish_span,
    route_template,
    server_span,
)
from pacekeeper.ops._ready import Readiness
from pacekeeper.ops._serve import drain_on_signal, quiet_lifespan_failures, serve
from pacekeeper.ops._tracing import configure_tracing, shutdown_tracing, tracing_wanted

__all__ = [
    "HttpMetrics",
    "JsonFormatter",
    "ObserveMiddleware",
    "Readiness",
    "choose_request_id",
    "configure_logging",
    "configure_tracing",
    "drain_on_signal",
    "finish_span",
    "log_config",
    "quiet_lifespan_failures",
    "request_id",
    "route_template",
    "serve",
    "server_span",
    "shutdown_tracing",
    "tracing_wanted",
    "watch_loop_lag",
]
