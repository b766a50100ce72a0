"""Service errors: one exception type carrying status, code and message (ERR-1).

Handlers raise these; the app turns them into `{"error": code, "message": text}`.
Every 401 carries `WWW-Authenticate` (ERR-2); 422 is never used (400 instead).
"""

from __future__ import annotations

from collections.abc import Mapping


class ApiError(Exception):
    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.headers: dict[str, str] = dict(headers or {})


class ValidationFailed(ApiError):
    status = 400
    code = "validation_error"


class Unauthenticated(ApiError):
    """401; `www_authenticate` is filled in by the principal resolver."""

    status = 401

    def __init__(self, message: str, *, code: str, www_authenticate: str) -> None:
        super().__init__(message, code=code, headers={"WWW-Authenticate": www_authenticate})


class Forbidden(ApiError):
    status = 403
    code = "forbidden"


class CsrfFailed(ApiError):
    status = 403
    code = "csrf_failed"


class Conflict(ApiError):
    status = 409
    code = "conflict"


class RateLimited(ApiError):
    status = 429
    code = "rate_limited"


AUTHENTICATION_REQUIRED = "authentication required"
INVALID_TOKEN = "invalid token"  # noqa: S105 (a message, not a secret)

__all__ = [
    "AUTHENTICATION_REQUIRED",
    "INVALID_TOKEN",
    "ApiError",
    "Conflict",
    "CsrfFailed",
    "Forbidden",
    "RateLimited",
    "Unauthenticated",
    "ValidationFailed",
]
