"""HTTP handlers of the core service (accounts, tokens, public documents)."""

from pacekeeper.api._auth_routes import logout, password_grant, refresh, register
from pacekeeper.api._body_limit import BodyLimitMiddleware
from pacekeeper.api._common import (
    JSONResponse,
    api_error_handler,
    error_response,
    http_error_handler,
    internal_error_handler,
    iso_utc,
)
from pacekeeper.api._headers import SecurityHeadersMiddleware
from pacekeeper.api._meta_routes import health, jwks, openapi
from pacekeeper.api._openapi import add_path, openapi_document
from pacekeeper.api._unavailable import UNAVAILABLE, UnavailableMiddleware, unavailable_handler

__all__ = [
    "UNAVAILABLE",
    "BodyLimitMiddleware",
    "JSONResponse",
    "SecurityHeadersMiddleware",
    "UnavailableMiddleware",
    "add_path",
    "api_error_handler",
    "error_response",
    "health",
    "http_error_handler",
    "internal_error_handler",
    "iso_utc",
    "jwks",
    "logout",
    "openapi",
    "openapi_document",
    "password_grant",
    "refresh",
    "register",
    "unavailable_handler",
]
