"""/api/keys over HTTP: create (secret shown once), list (metadata), delete (KEY-1/2/7).

Callers authenticate with a user or admin JWT through the service's one resolver, so
cookie callers pass the one CSRF check on POST and DELETE. A user may create keys of the
tiers their tenant's plan allows (`PLAN_TIERS`); an admin any tier, also for another
user (`user_id`). Listing and deleting: one's own keys; an admin anyone's.
"""

from __future__ import annotations

import uuid
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from pacekeeper.apikeys._secret import display_prefix
from pacekeeper.apikeys._store import ApiKey
from pacekeeper.apikeys._tiers import QUOTAS, Tier, parse_tier, tiers_for_plan
from pacekeeper.auth import Principal
from pacekeeper.errors import ApiError, Forbidden, ValidationFailed
from pacekeeper.http._common import (
    JSONResponse,
    iso_utc,
    read_json_object,
    required_string,
    services,
    string_field,
)

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
MAX_NAME_CHARS = 100
_TIER_NAMES = ", ".join(t.value for t in Tier)


class NotFound(ApiError):
    status = 404
    code = "not_found"


def _rate(principal: Principal) -> dict[str, str]:
    return principal.rate.headers() if principal.rate else {}


def _metadata(key: ApiKey) -> dict[str, Any]:
    return {
        "id": key.id,
        "name": key.name,
        "tier": key.tier.value,
        "prefix": display_prefix(key.id),
        "created_at": iso_utc(key.created_at),
        "last_used_at": iso_utc(key.last_used_at) if key.last_used_at else None,
        "expires_at": iso_utc(key.expires_at) if key.expires_at else None,
    }


def _user_id(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise ValidationFailed("user_id must be a UUID") from None


async def create_key(request: Request) -> Response:
    """POST /api/keys {name, tier[, user_id]} -> 201 with `api_key`, shown this once."""
    svc = services(request)
    principal = await svc.resolver.require(request.method, request.headers)
    data = await read_json_object(request)
    name = required_string(data, "name").strip()
    if not name or len(name) > MAX_NAME_CHARS:
        raise ValidationFailed(f"name must be 1 to {MAX_NAME_CHARS} characters")
    tier = parse_tier(data.get("tier"))
    if tier is None:
        raise ValidationFailed(f"tier must be one of {_TIER_NAMES}")
    if "user_id" in data and data["user_id"] is None:
        raise ValidationFailed("user_id must be a string (a user's UUID)")
    owner_text = string_field(data, "user_id", required=False)
    owner = principal.user_id
    if owner_text is not None and _user_id(owner_text) != principal.user_id:
        if not principal.is_admin:
            raise Forbidden("only an admin may create keys for another user")
        owner = _user_id(owner_text)
        if await svc.users.get(owner) is None:
            raise NotFound("no such user")
    if not principal.is_admin:
        tenant = await svc.users.get_tenant(principal.tenant_id)
        plan = tenant.plan if tenant else "free"
        allowed = tiers_for_plan(plan)
        if tier not in allowed:
            names = ", ".join(t.value for t in Tier if t in allowed)
            raise Forbidden(f"the {plan} plan allows keys of tier {names} only")
    created = await svc.api_keys.create(owner, name, tier)
    body = {
        **_metadata(created.key),
        "api_key": created.plaintext,
        "quota": QUOTAS[tier],
        "user_id": str(owner),
    }
    return JSONResponse(body, 201, headers={**_NO_STORE, **_rate(principal)})


async def list_keys(request: Request) -> Response:
    """GET /api/keys[?user_id=] -> {"keys": [...]}: metadata and usage, never a secret."""
    svc = services(request)
    principal = await svc.resolver.require(request.method, request.headers)
    owner = principal.user_id
    asked = request.query_params.get("user_id")
    if asked is not None and _user_id(asked) != owner:
        if not principal.is_admin:
            raise Forbidden("only an admin may list another user's keys")
        owner = _user_id(asked)
    keys = [
        {**_metadata(key), "usage": {"used": used, "limit": QUOTAS[key.tier],
                                     "window_days": 30}}
        for key, used in await svc.api_keys.list_for(owner)
    ]
    return JSONResponse({"keys": keys}, headers={**_NO_STORE, **_rate(principal)})


async def keys_collection(request: Request) -> Response:
    """/api/keys: one route for GET and POST, so a 405 lists both in `Allow`."""
    if request.method == "POST":
        return await create_key(request)
    return await list_keys(request)


async def delete_key(request: Request) -> Response:
    """DELETE /api/keys/{id}: refused at once everywhere afterwards (KEY-7)."""
    svc = services(request)
    principal = await svc.resolver.require(request.method, request.headers)
    key_id = str(request.path_params["key_id"])
    key = await svc.api_keys.get(key_id)
    # Someone else's key reads as missing: ids are not secret, ownership is.
    if (
        key is None
        or key.deleted_at is not None
        or (key.user_id != principal.user_id and not principal.is_admin)
    ):
        raise NotFound("no such API key")
    await svc.api_keys.delete(key_id)
    return Response(status_code=204, headers=_rate(principal))


__all__ = ["NotFound", "create_key", "delete_key", "keys_collection", "list_keys"]
