"""What an administrator does from the web app or the HTTP API: disable and enable users,
list and create tenants and change their plan or rate limit, switch the registration
mode. Every caller is checked to be an admin by the routes; here are the rules.

- Disabling goes through the users repository, which sets the status, moves the token
  version and then the cross-process revocation signal before it returns: the person's
  cookie sessions, bearer and OAuth access tokens (they carry the version) and API keys
  (their cache holds only while the signal stands still) are "invalid token" at the next
  request in every process (ACC-8). Enabling moves the signal too (the caches hold the
  disabled state) but not the version: tokens from before stay dead.
- An admin cannot disable themselves (the last way in could go with it).
- A tenant's plan decides which API key tiers its users may create (`PLAN_TIERS`); its
  rate limit is read with the user's state per request, so a change moves the signal.
- The registration mode is stored (`site_settings`); until an admin sets it, the
  environment's `PACEKEEPER_REGISTRATION` holds.
"""

from __future__ import annotations

import re
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from pacekeeper.admin._store import SlugTaken, SqlAdminStore, TenantListing, UserListing
from pacekeeper.apikeys import PLAN_TIERS
from pacekeeper.config import RegistrationMode
from pacekeeper.db import Tenant, UserRepository, UserStatus
from pacekeeper.errors import ApiError, Conflict, ValidationFailed

REGISTRATION = "registration"
MAX_RATE_LIMIT = 1_000_000
_SLUG = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$")


class Signal(Protocol):
    async def bump(self) -> None: ...


@dataclass(frozen=True, slots=True)
class RegistrationSetting:
    mode: RegistrationMode
    source: Literal["stored", "environment"]


def not_found(what: str) -> ApiError:
    return ApiError(f"no such {what}", code="not_found", status=404)


def _slugify(name: str) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80].strip("-")
    return f"{base or 't'}-{secrets.token_hex(3)}"


def _plan(value: str) -> str:
    if value not in PLAN_TIERS:
        raise ValidationFailed("plan must be one of " + ", ".join(PLAN_TIERS))
    return value


def _rate_limit(value: int | None) -> int | None:
    if value is not None and not 1 <= value <= MAX_RATE_LIMIT:
        raise ValidationFailed(f"rate_limit_per_minute must be 1..{MAX_RATE_LIMIT} or null")
    return value


def _name(value: str) -> str:
    name = value.strip()
    if not 1 <= len(name) <= 200:
        raise ValidationFailed("name must be 1 to 200 characters")
    return name


class AdminService:
    def __init__(self, users: UserRepository, store: SqlAdminStore, signal: Signal,
                 default_registration: RegistrationMode,
                 clock: Callable[[], datetime]) -> None:
        self._users = users
        self._store = store
        self._signal = signal
        self._default = default_registration
        self._clock = clock

    # Registration mode
    async def registration(self) -> RegistrationSetting:
        stored = await self._store.setting(REGISTRATION)
        if stored is not None:
            try:
                return RegistrationSetting(RegistrationMode(stored), "stored")
            except ValueError:  # a value of a newer release: the environment's holds
                pass
        return RegistrationSetting(self._default, "environment")

    async def set_registration(self, mode: str) -> RegistrationSetting:
        try:
            chosen = RegistrationMode(mode)
        except ValueError:
            raise ValidationFailed(
                "mode must be one of " + ", ".join(m.value for m in RegistrationMode)
            ) from None
        await self._store.set_setting(REGISTRATION, chosen.value, self._clock())
        return RegistrationSetting(chosen, "stored")

    # Users
    async def users(self, query: str | None, tenant_id: uuid.UUID | None, after: str | None,
                    limit: int) -> list[UserListing]:
        return await self._store.users(query, tenant_id, after, limit)

    async def set_status(self, actor_id: uuid.UUID, user_id: uuid.UUID,
                         status: str) -> UserListing:
        try:
            wanted = UserStatus(status)
        except ValueError:
            raise ValidationFailed("status must be active or disabled") from None
        if user_id == actor_id and wanted is UserStatus.DISABLED:
            raise Conflict("you cannot disable your own account")
        change = self._users.disable if wanted is UserStatus.DISABLED else self._users.enable
        if not await change(user_id):
            raise not_found("user")
        found = await self._store.users(None, None, None, 1, user_id=user_id)
        if not found:  # deleted in between
            raise not_found("user")
        return found[0]

    # Tenants and plans
    @staticmethod
    def plans() -> list[tuple[str, list[str]]]:
        return [(plan, sorted(t.value for t in tiers)) for plan, tiers in PLAN_TIERS.items()]

    async def tenants(self) -> list[TenantListing]:
        return await self._store.tenants()

    async def create_tenant(self, name: str, slug: str | None, plan: str,
                            rate_limit: int | None) -> TenantListing:
        chosen = _name(name)
        if slug is not None and not _SLUG.match(slug):
            raise ValidationFailed(
                "slug must be 1 to 100 lower-case letters, digits and inner hyphens")
        tenant = Tenant(id=uuid.uuid4(), name=chosen, slug=slug or _slugify(chosen),
                        plan=_plan(plan), rate_limit_per_minute=_rate_limit(rate_limit),
                        created_at=self._clock())
        try:
            await self._store.add_tenant(tenant)
        except SlugTaken:
            raise Conflict("a tenant with this slug already exists") from None
        return TenantListing(tenant, 0)

    async def update_tenant(self, tenant_id: uuid.UUID, *, name: str | None = None,
                            plan: str | None = None, rate_limit: int | None = None,
                            set_rate_limit: bool = False) -> TenantListing:
        values: dict[str, object] = {}
        if name is not None:
            values["name"] = _name(name)
        if plan is not None:
            values["plan"] = _plan(plan)
        if set_rate_limit:
            values["rate_limit_per_minute"] = _rate_limit(rate_limit)
        if not values:
            raise ValidationFailed("give at least one of name, plan, rate_limit_per_minute")
        if not await self._store.update_tenant(tenant_id, values):
            raise not_found("tenant")
        if set_rate_limit:
            # Each request reads the tenant's limit with the user's cached state.
            await self._signal.bump()
        found = await self._store.tenant(tenant_id)
        if found is None:
            raise not_found("tenant")
        return found


__all__ = ["MAX_RATE_LIMIT", "AdminService", "RegistrationSetting", "not_found"]
