"""Admin endpoints (the web app's Admin page and the HTTP API), admins only.

| method and path | what |
|---|---|
| `GET /api/admin/users?q=&tenant_id=&after=&limit=` | users by email, with tenant and status |
| `PATCH /api/admin/users/{user_id} {status}` | `disabled` (immediate everywhere) or `active` |
| `GET /api/admin/tenants` | tenants with plan, rate limit and head count |
| `POST /api/admin/tenants {name, slug?, plan?, rate_limit_per_minute?}` | a new tenant |
| `PATCH /api/admin/tenants/{tenant_id} {name?, plan?, rate_limit_per_minute?}` | change it |
| `GET /api/admin/plans` | each plan and the API key tiers it allows |
| `GET`/`PUT /api/admin/registration {mode}` | `open`, `admin` (invite only), `closed` |

A login JWT of an admin only: cookie (with CSRF on writes, the one check in
`resolver.require`) or bearer. API keys and OAuth access tokens never reach here (the
resolver refuses delegated tokens outside /mcp); a user who is not an admin gets 403.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pacekeeper.admin._service import AdminService, RegistrationSetting, not_found
from pacekeeper.admin._store import TenantListing, UserListing
from pacekeeper.auth import Principal
from pacekeeper.config import RegistrationMode
from pacekeeper.errors import Forbidden, ValidationFailed
from pacekeeper.http._common import (
    JSONResponse,
    iso_utc,
    read_json_object,
    required_string,
    services,
    string_field,
)

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
MAX_PAGE = 200


async def _admin(request: Request) -> tuple[AdminService, Principal]:
    svc = services(request)
    principal = await svc.resolver.require(request.method, request.headers)
    if not principal.is_admin:
        raise Forbidden("administrators only")
    assert svc.admin is not None
    return svc.admin, principal


def _json(body: dict[str, Any], principal: Principal, status: int = 200) -> JSONResponse:
    rate = principal.rate.headers() if principal.rate else {}
    return JSONResponse(body, status, headers={**_NO_STORE, **rate})


def _path_id(request: Request, name: str, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(request.path_params[name]))
    except ValueError:
        raise not_found(what) from None


def _user(u: UserListing) -> dict[str, Any]:
    return {"id": str(u.id), "email": u.email, "display_name": u.display_name, "role": u.role,
            "status": u.status, "tenant_id": str(u.tenant_id), "tenant_name": u.tenant_name,
            "created_at": iso_utc(u.created_at),
            "last_login_at": iso_utc(u.last_login_at) if u.last_login_at else None}


def _tenant(t: TenantListing) -> dict[str, Any]:
    x = t.tenant
    return {"id": str(x.id), "name": x.name, "slug": x.slug, "plan": x.plan,
            "rate_limit_per_minute": x.rate_limit_per_minute,
            "created_at": iso_utc(x.created_at), "users": t.users}


def _registration(r: RegistrationSetting) -> dict[str, Any]:
    return {"mode": r.mode.value, "source": r.source,
            "modes": [m.value for m in RegistrationMode]}


def _rate_limit(data: dict[str, Any]) -> int | None:
    value = data.get("rate_limit_per_minute")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValidationFailed("rate_limit_per_minute must be an integer or null")
    return value


async def list_users(request: Request) -> Response:
    admin, principal = await _admin(request)
    params = request.query_params
    tenant_id = None
    if params.get("tenant_id"):
        try:
            tenant_id = uuid.UUID(params["tenant_id"])
        except ValueError:
            raise ValidationFailed("tenant_id must be a UUID") from None
    try:
        limit = int(params.get("limit", "50"))
    except ValueError:
        raise ValidationFailed(f"limit must be an integer 1..{MAX_PAGE}") from None
    if not 1 <= limit <= MAX_PAGE:
        raise ValidationFailed(f"limit must be an integer 1..{MAX_PAGE}")
    query = params.get("q") or None
    if query is not None and len(query) > 320:
        raise ValidationFailed("q must be at most 320 characters")
    found = await admin.users(query, tenant_id, params.get("after") or None, limit + 1)
    page = found[:limit]
    next_after = page[-1].email if len(found) > limit else None
    return _json({"users": [_user(u) for u in page], "next_after": next_after}, principal)


async def set_user_status(request: Request) -> Response:
    admin, principal = await _admin(request)
    user_id = _path_id(request, "user_id", "user")
    data = await read_json_object(request)
    changed = await admin.set_status(principal.user_id, user_id, required_string(data, "status"))
    return _json({"user": _user(changed)}, principal)


async def tenants(request: Request) -> Response:
    """GET lists, POST creates (one route per path: a 405 lists both in `Allow`)."""
    admin, principal = await _admin(request)
    if request.method == "GET":
        return _json({"tenants": [_tenant(t) for t in await admin.tenants()]}, principal)
    data = await read_json_object(request)
    created = await admin.create_tenant(
        required_string(data, "name"), string_field(data, "slug", required=False),
        string_field(data, "plan", required=False) or "free", _rate_limit(data))
    return _json({"tenant": _tenant(created)}, principal, 201)


async def update_tenant(request: Request) -> Response:
    admin, principal = await _admin(request)
    tenant_id = _path_id(request, "tenant_id", "tenant")
    data = await read_json_object(request)
    changed = await admin.update_tenant(
        tenant_id, name=string_field(data, "name", required=False),
        plan=string_field(data, "plan", required=False), rate_limit=_rate_limit(data),
        set_rate_limit="rate_limit_per_minute" in data)
    return _json({"tenant": _tenant(changed)}, principal)


async def list_plans(request: Request) -> Response:
    admin, principal = await _admin(request)
    return _json({"plans": [{"name": name, "key_tiers": tiers}
                            for name, tiers in admin.plans()]}, principal)


async def registration(request: Request) -> Response:
    admin, principal = await _admin(request)
    if request.method == "PUT":
        data = await read_json_object(request)
        return _json(_registration(await admin.set_registration(
            required_string(data, "mode"))), principal)
    return _json(_registration(await admin.registration()), principal)


def admin_routes() -> list[Route]:
    return [
        Route("/api/admin/users", list_users, methods=["GET"]),
        Route("/api/admin/users/{user_id}", set_user_status, methods=["PATCH"]),
        Route("/api/admin/tenants", tenants, methods=["GET", "POST"]),
        Route("/api/admin/tenants/{tenant_id}", update_tenant, methods=["PATCH"]),
        Route("/api/admin/plans", list_plans, methods=["GET"]),
        Route("/api/admin/registration", registration, methods=["GET", "PUT"]),
    ]


__all__ = ["admin_routes"]
