"""The HTTP layer (as `pacekeeper.tools` is the MCP layer): every route module of the
service, one per feature, its OpenAPI path items beside it (`<feature>_openapi.py`, or in
the module), and what they share (`_common`: JSON in, errors out, the services of a
request; the middleware). Handlers call services; no service imports this package.
The pages' routes are `pacekeeper.web`'s."""

from pacekeeper.http._body_limit import BodyLimitMiddleware
from pacekeeper.http._common import (
    JSONResponse,
    api_error_handler,
    error_response,
    http_error_handler,
    internal_error_handler,
    iso_utc,
)
from pacekeeper.http._headers import SecurityHeadersMiddleware
from pacekeeper.http._openapi import add_path, openapi_document
from pacekeeper.http._unavailable import UNAVAILABLE, unavailable_handler
from pacekeeper.http.auth import logout, password_grant, refresh, register
from pacekeeper.http.meta import health, jwks, openapi
from pacekeeper.http.ops import metrics_allowed, metrics_endpoint, ready, update_gauges

__all__ = [
    "UNAVAILABLE",
    "BodyLimitMiddleware",
    "JSONResponse",
    "SecurityHeadersMiddleware",
    "add_path",
    "api_error_handler",
    "error_response",
    "health",
    "http_error_handler",
    "internal_error_handler",
    "iso_utc",
    "jwks",
    "logout",
    "metrics_allowed",
    "metrics_endpoint",
    "openapi",
    "openapi_document",
    "password_grant",
    "ready",
    "refresh",
    "register",
    "unavailable_handler",
    "update_gauges",
]
