"""POST /oauth2/token: authorization_code and refresh_token grants (AS-5..9, AS-13).

Form-urlencoded only; a parameter given twice is `invalid_request` (RFC 6749 3.2).
The client authenticates with the method it registered (basic, post or none). Every
answer is `Cache-Control: no-store` and carries the per-IP `X-RateLimit-*` headers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.oauth2._clients import Client, authenticate, presented_credentials
from pacekeeper.oauth2._components import OAuth2Components, components
from pacekeeper.oauth2.errors import (
    NO_STORE,
    InvalidRequest,
    OAuth2Error,
    UnauthorizedClient,
    UnsupportedGrantType,
)

_MAX_FIELD = 4096


async def read_form(request: Request) -> dict[str, str]:
    """A urlencoded form with single-valued, bounded fields; InvalidRequest otherwise."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        raise InvalidRequest("body must be application/x-www-form-urlencoded")
    form = await request.form(max_files=0, max_fields=64)
    values: dict[str, str] = {}
    for key, value in form.multi_items():
        if not isinstance(value, str) or len(value) > _MAX_FIELD:
            raise InvalidRequest(f"{key} is too long")
        if key in values:
            raise InvalidRequest(f"{key} was given more than once")
        values[key] = value
    return values


def json_no_store(body: dict[str, Any], headers: dict[str, str], status: int = 200) -> Response:
    return Response(
        orjson.dumps(body), status, headers={**NO_STORE, **headers}, media_type="application/json"
    )


Answer = Callable[[OAuth2Components, Client, dict[str, str]], Awaitable[Response]]


async def client_endpoint(request: Request, limit: str, answer: Answer) -> Response:
    """An endpoint the client authenticates at (token, revocation): the per-IP limit, the
    form, the client's proof, then `answer`; every response carries the limit headers."""
    oauth = components(request)
    rate: dict[str, str] = {}
    try:
        rate = (await oauth.limits.check(limit, request)).headers()
        form = await read_form(request)
        presented = presented_credentials(request.headers.get("authorization"), form)
        client = authenticate(await oauth.server.client(presented.client_id), presented)
        response = await answer(oauth, client, form)
    except OAuth2Error as exc:
        response = exc.response()
        response.headers.update({k: v for k, v in rate.items() if k not in exc.headers})
        return response
    response.headers.update(rate)
    return response


async def _grant(oauth: OAuth2Components, client: Client, form: dict[str, str]) -> Response:
    grant_type = form.get("grant_type")
    if not grant_type:
        raise InvalidRequest("grant_type is required")
    if grant_type not in ("authorization_code", "refresh_token"):
        raise UnsupportedGrantType(f"unsupported grant_type {grant_type[:50]!r}")
    if grant_type not in client.grant_types:
        raise UnauthorizedClient(f"this client is not registered for {grant_type}")
    if grant_type == "authorization_code":
        return json_no_store(await oauth.server.exchange_code(client, form), {})
    return json_no_store(await oauth.server.refresh(client, form), {})


async def token(request: Request) -> Response:
    return await client_endpoint(request, "token", _grant)


__all__ = ["client_endpoint", "json_no_store", "read_form", "token"]
