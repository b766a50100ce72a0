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
Each is CSRF-protected for cookie callers by the one check (`resolver.require`).
"""

from __future__ import annotations

import io
import uuid
import zipfile
from datetime import UTC, date, datetime
from typing import Any

import orjson
from sqlalchemy import delete, func, select, update
from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.api._common import (
    JSONResponse,
    iso_utc,
    read_json_object,
    required_string,
    services,
)
from pacekeeper.auth import Principal, clear_session_cookies, set_session_cookies
from pacekeeper.db import Base, User
from pacekeeper.errors import Forbidden
from pacekeeper.fitness._records import ActivityFilter, Owner
from pacekeeper.fitness._views import activity_json, daily_json
from pacekeeper.services import Services

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
_REFUSED = "the password is not correct"


async def _me(request: Request) -> tuple[Services, Principal, User]:
    svc = services(request)
    principal = await svc.resolver.require(request.method, request.headers)
    user = await svc.users.get(principal.user_id)
    if user is None:
        raise svc.resolver.unauthenticated(invalid=True)
    return svc, principal, user


async def change_password(request: Request) -> Response:
    svc, principal, user = await _me(request)
    data = await read_json_object(request)
    current = required_string(data, "current_password")
    new = required_string(data, "new_password")
    if not await svc.accounts.verify_password(user, current):
        raise Forbidden(_REFUSED)
    new_hash = await svc.accounts.hash_password(new)
    users = Base.metadata.tables["users"]
    async with svc.engine.begin() as conn:
        await conn.execute(update(users).where(users.c.id == user.id).values(
            password_hash=new_hash, token_version=users.c.token_version + 1))
    await _signal_change(svc)
    fresh = await svc.users.get(user.id)
    assert fresh is not None
    body: dict[str, Any] = {"changed": True}
    response = JSONResponse(body, headers=_NO_STORE)
    if principal.via == "cookie":
        issued = svc.tokens.issue(fresh)
        csrf = await svc.csrf.issue(fresh.id)
        body["csrf_token"] = csrf.token
        response = JSONResponse(body, headers=_NO_STORE)
        set_session_cookies(response, issued.token, csrf.token,
                            svc.settings.jwt_lifetime_seconds)
    return response


async def _signal_change(svc: Services) -> None:
    """Move the cross-process revocation signal (after the commit), as a disable does:
    every process then re-reads the user's state (token version, existence) instead of
    its cached copy, and drops cached API keys."""
    if svc.oauth is not None and svc.oauth.server.revocations is not None:
        await svc.oauth.server.revocations.bump()


def _json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)


async def build_export(svc: Services, user: User) -> bytes:
    owner = Owner(user.id, user.tenant_id)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("account.json", _json({
            "id": str(user.id), "email": user.email, "display_name": user.display_name,
            "role": user.role.value, "created_at": iso_utc(user.created_at),
            "exported_at": iso_utc(datetime.now(UTC)),
        }))  # fmt: skip
        cursor: str | None = None
        count = 0
        while True:
            page = await svc.fitness.page(owner, ActivityFilter(), limit=200, cursor=cursor)
            for item in page.items:
                detail = activity_json(item, detail=True)
                streams = await svc.fitness.streams(owner, item.id)
                detail["streams"] = streams.to_json()
                archive.writestr(f"activities/{item.id}.json", _json(detail))
                count += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        for sha, name, data in await svc.fitness.store.originals(user.id):
            safe = (name or "file").replace("/", "_").replace("\\", "_")[-120:]
            archive.writestr(f"originals/{sha[:16]}-{safe}", data)
        archive.writestr("settings.json", _json(await svc.fitness.athlete(owner)))
        days = await svc.fitness.store.daily(user.id, date(1970, 1, 1), date.today())
        archive.writestr("daily.json", _json(daily_json(days)))
        connections: dict[str, Any] = {}
        if svc.connections is not None:
            connections = await svc.connections.status(user.id)
        archive.writestr("connections.json", _json(connections))
        keys = [
            {"id": key.id, "name": key.name, "tier": key.tier.value,
             "created_at": iso_utc(key.created_at),
             "last_used_at": iso_utc(key.last_used_at) if key.last_used_at else None,
             "expires_at": iso_utc(key.expires_at) if key.expires_at else None,
             "used_last_30_days": used}
            for key, used in await svc.api_keys.list_for(user.id)
        ]  # fmt: skip
        archive.writestr("api_keys.json", _json(keys))
        archive.writestr("README.txt", (
            f"Pacekeeper data export for {user.email}: {count} activities.\n"
            "activities/: one JSON file per activity (summary, laps, metrics, sources and\n"
            "the 1 Hz streams; null marks a second without a sample). originals/: the files\n"
            "you imported, as they came. settings.json, daily.json, connections.json (no\n"
            "tokens), api_keys.json (metadata only: secrets are never stored).\n"))
    return buffer.getvalue()


async def export_account(request: Request) -> Response:
    svc, principal, user = await _me(request)
    data = await build_export(svc, user)
    stamp = datetime.now(UTC).strftime("%Y%m%d")
    return Response(data, media_type="application/zip", headers={
        **_NO_STORE,
        "Content-Disposition": f'attachment; filename="pacekeeper-export-{stamp}.zip"',
        **(principal.rate.headers() if principal.rate else {}),
    })  # fmt: skip


async def erase_user(svc: Services, user: User) -> dict[str, Any]:
    """Deauthorise every connected provider, then delete every row of the person."""
    deauthorized: list[str] = []
    if svc.connections is not None:
        status = await svc.connections.status(user.id)
        for provider in status.get("connected_providers", []):
            outcome = await svc.connections.disconnect(user.id, provider)
            if outcome.get("deauthorized"):
                deauthorized.append(provider)
    tables = [t for t in reversed(Base.metadata.sorted_tables)
              if "user_id" in t.c and t.name != "users"]  # fmt: skip
    users = Base.metadata.tables["users"]
    tenants = Base.metadata.tables["tenants"]
    async with svc.engine.begin() as conn:
        for table in tables:
            await conn.execute(delete(table).where(table.c.user_id == user.id))
        await conn.execute(delete(users).where(users.c.id == user.id))
        others = (await conn.execute(select(func.count()).select_from(users)
                                     .where(users.c.tenant_id == user.tenant_id))).scalar_one()
        if others == 0:
            for table in reversed(Base.metadata.sorted_tables):
                if "tenant_id" in table.c and table.name != "users":
                    await conn.execute(delete(table).where(table.c.tenant_id == user.tenant_id))
            await conn.execute(delete(tenants).where(tenants.c.id == user.tenant_id))
    await _signal_change(svc)
    return {"deleted": True, "deauthorized_providers": deauthorized}


async def delete_account(request: Request) -> Response:
    svc, _principal, user = await _me(request)
    data = await read_json_object(request)
    password = required_string(data, "password")
    if not await svc.accounts.verify_password(user, password):
        raise Forbidden(_REFUSED)
    body = await erase_user(svc, user)
    await svc.resolver.end_session(request.headers)
    response = JSONResponse(body, headers=_NO_STORE)
    clear_session_cookies(response)
    return response


def _grants_query(user_id: Any, now: datetime) -> Any:
    rt = Base.metadata.tables["oauth_refresh_tokens"]
    return (select(rt.c.client_id, rt.c.family_id, rt.c.scope, rt.c.created_at)
            .where(rt.c.user_id == user_id, rt.c.revoked_at.is_(None), rt.c.expires_at > now))


async def list_assistants(request: Request) -> Response:
    svc, _principal, user = await _me(request)
    clients = Base.metadata.tables["oauth_clients"]
    found: dict[str, dict[str, Any]] = {}
    async with svc.engine.connect() as conn:
        rows = (await conn.execute(_grants_query(user.id, svc.clock()))).all()
        for client_id, _family, scope, created in rows:
            entry = found.setdefault(client_id, {"client_id": client_id, "client_name": None,
                                                 "scopes": set(), "authorized_at": created})
            entry["scopes"].update((scope or "").split())
            entry["authorized_at"] = min(entry["authorized_at"], created)
        if found:
            names = await conn.execute(select(clients.c.client_id, clients.c.client_name)
                                       .where(clients.c.client_id.in_(list(found))))
            for client_id, name in names.all():
                found[client_id]["client_name"] = name
    body = [{**e, "client_name": e["client_name"] or e["client_id"],
             "scopes": sorted(e["scopes"]), "authorized_at": iso_utc(e["authorized_at"])}
            for e in found.values()]  # fmt: skip
    return JSONResponse({"assistants": body}, headers=_NO_STORE)


async def revoke_assistant(request: Request) -> Response:
    svc, _principal, user = await _me(request)
    client_id = str(request.path_params["client_id"])
    now = svc.clock()
    async with svc.engine.connect() as conn:
        families = {row[1] for row in (await conn.execute(_grants_query(user.id, now))).all()
                    if row[0] == client_id}  # fmt: skip
    if svc.oauth is not None:
        for family in families:
            await svc.oauth.server.revoke_family(uuid.UUID(str(family)), now)
    return JSONResponse({"client_id": client_id, "revoked_grants": len(families)},
                        headers=_NO_STORE)


__all__ = ["build_export", "change_password", "delete_account", "erase_user",
           "export_account", "list_assistants", "revoke_assistant"]


