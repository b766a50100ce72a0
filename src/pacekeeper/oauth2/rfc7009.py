"""Token revocation (RFC 7009) at POST /oauth2/revoke.

The client authenticates as at the token endpoint. Revoking a refresh token revokes
its whole family (the grant). Unknown tokens, other clients' tokens and JWT access
tokens get 200 as the RFC asks (access tokens are short-lived and simply expire).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.oauth2._clients import authenticate, presented_credentials
from pacekeeper.oauth2._components import components
from pacekeeper.oauth2.errors import NO_STORE, InvalidRequest, OAuth2Error
from pacekeeper.oauth2.rfc6749 import read_form


async def revoke(request: Request) -> Response:
    oauth = components(request)
    rate: dict[str, str] = {}
    try:
        rate = (await oauth.limits.check("revoke", request)).headers()
        form = await read_form(request)
        presented = presented_credentials(request.headers.get("authorization"), form)
        client = authenticate(await oauth.server.client(presented.client_id), presented)
        value = form.get("token")
        if not value:
            raise InvalidRequest("token is required")
        await oauth.server.revoke(client, value)
    except OAuth2Error as exc:
        response = exc.response()
        response.headers.update({k: v for k, v in rate.items() if k not in exc.headers})
        return response
    return Response(b"", 200, headers={**NO_STORE, **rate})


__all__ = ["revoke"]
