"""OAuth 2.0 errors (RFC 6749 section 5.2, RFC 7591 section 3.2.2, RFC 7009, RFC 8707).

Each class carries its `error` code and status and renders its own response:
`{"error", "error_description"}` with `Cache-Control: no-store` (AS-13). The
authorization endpoint instead sends them to the client's redirect URI (`to_query`).
"""

from __future__ import annotations

from collections.abc import Mapping

import orjson
from starlette.responses import Response

from pacekeeper.errors import PacekeeperError

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


class OAuth2Error(PacekeeperError):
    error = "server_error"
    status = 400

    def __init__(
        self, description: str = "", *, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(description or self.error)
        self.description = description
        self.headers: dict[str, str] = dict(headers or {})

    def body(self) -> dict[str, str]:
        body = {"error": self.error}
        if self.description:
            body["error_description"] = self.description
        return body

    def response(self) -> Response:
        return Response(
            orjson.dumps(self.body()),
            self.status,
            headers={**NO_STORE, **self.headers},
            media_type="application/json",
        )

    def to_query(self) -> dict[str, str]:
        return self.body()


class InvalidRequest(OAuth2Error):
    error = "invalid_request"


class InvalidClient(OAuth2Error):
    """401 with a challenge (RFC 6749 5.2): Basic when the client tried Basic."""

    error = "invalid_client"
    status = 401

    def __init__(self, description: str = "client authentication failed", *, basic: bool = False):
        scheme = 'Basic realm="pacekeeper"' if basic else 'Bearer realm="pacekeeper"'
        super().__init__(description, headers={"WWW-Authenticate": scheme})


class InvalidGrant(OAuth2Error):
    error = "invalid_grant"


class UnauthorizedClient(OAuth2Error):
    error = "unauthorized_client"


class UnsupportedGrantType(OAuth2Error):
    error = "unsupported_grant_type"


class UnsupportedResponseType(OAuth2Error):
    error = "unsupported_response_type"


class InvalidScope(OAuth2Error):
    error = "invalid_scope"


class InvalidTarget(OAuth2Error):
    """RFC 8707: the `resource` is not one this server issues tokens for."""

    error = "invalid_target"


class AccessDenied(OAuth2Error):
    error = "access_denied"
    status = 403


class InvalidRedirectUri(OAuth2Error):
    error = "invalid_redirect_uri"


class InvalidClientMetadata(OAuth2Error):
    error = "invalid_client_metadata"


class UnsupportedTokenType(OAuth2Error):
    error = "unsupported_token_type"


class SlowDown(OAuth2Error):
    """429 from the per-IP limiter; the `X-RateLimit-*` and `Retry-After` headers ride along."""

    error = "rate_limited"
    status = 429


__all__ = [
    "NO_STORE",
    "AccessDenied",
    "InvalidClient",
    "InvalidClientMetadata",
    "InvalidGrant",
    "InvalidRedirectUri",
    "InvalidRequest",
    "InvalidScope",
    "InvalidTarget",
    "OAuth2Error",
    "SlowDown",
    "UnauthorizedClient",
    "UnsupportedGrantType",
    "UnsupportedResponseType",
    "UnsupportedTokenType",
]
