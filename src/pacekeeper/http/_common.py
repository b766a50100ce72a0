"""Shared HTTP helpers: JSON bodies in, JSON errors out, the services of a request."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.auth import AttemptLimiter, require_same_origin
from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.owner import Owner
from pacekeeper.services import Services, attempt_limiter, registration_mode
from pacekeeper.services import request_services as services

log = logging.getLogger("pacekeeper.http")

_HTTP_CODES = {
    400: "bad_request",
    401: "authentication_required",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
}


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def attempts(svc: Services) -> AttemptLimiter:
    """The login/registration limiter (always built by `build_services`)."""
    if svc.attempts is None:
        svc.attempts = attempt_limiter(svc.settings, svc.limiter)
    return svc.attempts


def refuse_cross_site(request: Request) -> None:
    """403 csrf_failed for a cross-site request to an endpoint that sets or clears the
    session (login, refresh, logout): the one check, `auth/_origin.py`."""
    require_same_origin(
        request.headers, request.url.scheme, services(request).settings.public_base_url
    )


def iso_utc(moment: datetime) -> str:
    """ISO 8601 UTC with a `Z`, second precision (what the spec's `expires_at` shows)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def error_response(
    status: int, code: str, message: str, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status, headers=dict(headers or {}))


async def api_error_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    if exc.status in (401, 403):
        # A refused authentication or authorization is a security event (ASVS 16.3.2):
        # what was asked and why it was refused; the path only (no query: codes, states).
        log.info("refused %s %s: %d %s", request.method, request.url.path, exc.status,
                 exc.code)
    return error_response(exc.status, exc.code, exc.message, exc.headers)


async def http_error_handler(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _HTTP_CODES.get(exc.status_code, "error")
    message = {
        413: "request body too large",
        404: "not found",
        405: "method not allowed",
    }.get(exc.status_code, str(exc.detail))
    return error_response(exc.status_code, code, message, exc.headers)


async def internal_error_handler(_request: Request, exc: Exception) -> Response:
    # Logged by type only; the traceback goes to the server log via Starlette, never out.
    log.error("unhandled %s", type(exc).__name__)
    return error_response(500, "internal_error", "internal error")


async def person(request: Request) -> tuple[Owner, dict[str, str]]:
    """The caller (any credential; a cookie write checked for CSRF by the resolver) as the
    owner of what it reads and writes, and its rate-limit headers."""
    principal = await services(request).resolver.require(request.method, request.headers)
    return Owner(principal.user_id, principal.tenant_id), (
        principal.rate.headers() if principal.rate else {})


async def read_json_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object, or 400 (non-JSON, broken JSON, not an object)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ValidationFailed("request body must be JSON (Content-Type: application/json)")
    body = await request.body()
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise ValidationFailed("request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ValidationFailed("request body must be a JSON object")
    return data


def required_string(data: Mapping[str, Any], name: str) -> str:
    """A string member that must be present: missing or wrong type is 400 naming it."""
    value = string_field(data, name, required=True)
    if value is None:  # string_field already refused it; this only narrows the type
        raise ValidationFailed(f"{name} is required")
    return value


def string_field(data: Mapping[str, Any], name: str, *, required: bool) -> str | None:
    """A string member: missing-but-required and wrong types are 400 naming the field."""
    value = data.get(name)
    if value is None:
        if required:
            raise ValidationFailed(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise ValidationFailed(f"{name} must be a string")
    return value


__all__ = [
    "JSONResponse",
    "api_error_handler",
    "attempts",
    "error_response",
    "http_error_handler",
    "internal_error_handler",
    "iso_utc",
    "read_json_object",
    "refuse_cross_site",
    "registration_mode",
    "required_string",
    "services",
    "string_field",
]
