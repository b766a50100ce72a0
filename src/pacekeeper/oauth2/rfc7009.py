"""Token revocation (RFC 7009) at POST /oauth2/revoke.

The client authenticates as at the token endpoint. Revoking a refresh token revokes
its whole grant (family): its refresh tokens and its access tokens (RFC 7009 2.1).
Revoking an access token does the same when the presenting client is the one it was
issued to. Unknown, invalid or expired tokens and other clients' tokens change nothing
and get 200 as the RFC asks (2.2).
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
