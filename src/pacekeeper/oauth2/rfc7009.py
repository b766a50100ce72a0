"""Token revocation (RFC 7009) at POST /oauth2/revoke.

The client authenticates as at the token endpoint. Revoking a refresh token revokes
its whole family (the grant). Unknown tokens, other clients' tokens and JWT access
tokens get 200 as the RFC asks (access tokens are short-lived and simply expire).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.oauth2._clients import Client
from pacekeeper.oauth2._components import OAuth2Components
from pacekeeper.oauth2.errors import NO_STORE, InvalidRequest
from pacekeeper.oauth2.rfc6749 import client_endpoint


async def _revoke(oauth: OAuth2Components, client: Client, form: dict[str, str]) -> Response:
    value = form.get("token")
    if not value:
        raise InvalidRequest("token is required")
    await oauth.server.revoke(client, value)
    return Response(b"", 200, headers=NO_STORE)


async def revoke(request: Request) -> Response:
    return await client_endpoint(request, "revoke", _revoke)


__all__ = ["revoke"]
