"""The person's own account over HTTP: change the password, download every piece of
their data as one zip archive, delete the account (data rights).

- `POST /api/account/password {current_password, new_password}`: the current password
  confirms it; every other session and token of the person ends (the token version moves
  on) and this one gets fresh cookies.
- `GET /api/account/export`: a zip with `account.json`, `activities/<id>.json` (the detail
  view and the full 1 Hz streams), `originals/` (the imported files as they came),
  `settings.json` (athlete settings and their history), `daily.json`, `connections.json`
  (which providers, no token) and `api_keys.json` (metadata and usage, never a secret).
- `DELETE /api/account {password}`: providers deauthorised first (best effort), then the
  user row and every row of theirs in every table (API keys, OAuth grants and refresh
  tokens, CSRF tokens, connections, activities, files, streams, settings, daily health,
  sync state), and their personal tenant when nobody else is in it; cookies cleared.
- `GET /api/account/assistants`: the OAuth clients (assistants) the person authorised
  that still hold a live grant; `DELETE /api/account/assistants/{client_id}` ends every
  grant of that client (its refresh tokens and, through the revocation signal, its access
  tokens).
Each is CSRF-protected for cookie callers by the one check (`resolver.require`); the
work is `pacekeeper.account.AccountService`'s (handlers do no storage of their own).
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.account import AccountService
from pacekeeper.auth import LOGIN, Principal, clear_session_cookies, set_session_cookies
from pacekeeper.db import User
from pacekeeper.errors import Forbidden
from pacekeeper.http._common import (
    JSONResponse,
    attempts,
    read_json_object,
    required_string,
    services,
)
from pacekeeper.services import Services

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
_REFUSED = "the password is not correct"


async def _me(request: Request) -> tuple[Services, AccountService, Principal, User]:
    svc = services(request)
    principal = await svc.resolver.require(request.method, request.headers)
    user = await svc.users.get(principal.user_id)
    if user is None:
        raise svc.resolver.unauthenticated(invalid=True)
    assert svc.account is not None
    return svc, svc.account, principal, user


async def _confirm_password(request: Request, svc: Services, account: AccountService,
                            user: User, password: str) -> None:
    """The person's password, checked under the login limits (issue 28): the same
    buckets as `/oauth/token` and the authorization page (per address, per account and
    address), counted before the check, so a stolen session cannot guess the password
    here at the hash's speed, nor alternate with the login form to get more tries."""
    limited = await attempts(svc).check(LOGIN, request, user.email)
    if not await account.verify_password(user, password):
        raise Forbidden(_REFUSED, headers=limited.headers())


async def change_password(request: Request) -> Response:
    svc, account, principal, user = await _me(request)
    data = await read_json_object(request)
    current = required_string(data, "current_password")
    new = required_string(data, "new_password")
    await _confirm_password(request, svc, account, user, current)
    fresh = await account.change_password(user, new)
    body: dict[str, Any] = {"changed": True}
    if principal.via != "cookie":
        return JSONResponse(body, headers=_NO_STORE)
    issued = svc.tokens.issue(fresh)
    csrf = await svc.csrf.issue(fresh.id)
    body["csrf_token"] = csrf.token
    response = JSONResponse(body, headers=_NO_STORE)
    set_session_cookies(response, issued.token, csrf.token, svc.settings.jwt_lifetime_seconds)
    return response


async def export_account(request: Request) -> Response:
    svc, account, principal, user = await _me(request)
    data = await account.export(user)
    stamp = svc.clock().astimezone(UTC).strftime("%Y%m%d")
    return Response(data, media_type="application/zip", headers={
        **_NO_STORE,
        "Content-Disposition": f'attachment; filename="pacekeeper-export-{stamp}.zip"',
        **(principal.rate.headers() if principal.rate else {}),
    })  # fmt: skip


async def delete_account(request: Request) -> Response:
    svc, account, _principal, user = await _me(request)
    data = await read_json_object(request)
    password = required_string(data, "password")
    await _confirm_password(request, svc, account, user, password)
    body = await account.erase(user)
    await svc.resolver.end_session(request.headers)
    response = JSONResponse(body, headers=_NO_STORE)
    clear_session_cookies(response)
    return response


async def list_assistants(request: Request) -> Response:
    _svc, account, _principal, user = await _me(request)
    found = await account.assistants(user)
    return JSONResponse({"assistants": [a.to_json() for a in found]}, headers=_NO_STORE)


async def revoke_assistant(request: Request) -> Response:
    _svc, account, _principal, user = await _me(request)
    client_id = str(request.path_params["client_id"])
    revoked = await account.revoke_assistant(user, client_id)
    return JSONResponse({"client_id": client_id, "revoked_grants": revoked},
                        headers=_NO_STORE)


__all__ = ["change_password", "delete_account", "export_account", "list_assistants",
           "revoke_assistant"]
