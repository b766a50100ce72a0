"""A person's rights over their own account: a new password, all their data as one
archive, deletion, and the assistants (OAuth clients) they authorised."""

from __future__ import annotations

import io
import uuid
import zipfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

import orjson

from pacekeeper.account._store import SqlAccountStore
from pacekeeper.db import User
from pacekeeper.fitness._records import ActivityFilter
from pacekeeper.fitness._views import activity_json, daily_json
from pacekeeper.owner import Owner

if TYPE_CHECKING:
    from pacekeeper.apikeys import ApiKeyService
    from pacekeeper.auth import Accounts
    from pacekeeper.connections import ConnectionService
    from pacekeeper.db import UserRepository
    from pacekeeper.fitness import FitnessService
    from pacekeeper.oauth2 import AuthorizationServer


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _json(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY)


@dataclass(frozen=True, slots=True)
class Assistant:
    client_id: str
    client_name: str
    scopes: list[str]
    authorized_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"client_id": self.client_id, "client_name": self.client_name,
                "scopes": self.scopes, "authorized_at": _iso(self.authorized_at)}


@dataclass(frozen=True, slots=True)
class AccountParts:
    """The services an account's rights are carried out through, each by its own API,
    handed in by the wiring (services.py): what the account service uses, not the whole
    container (which would make this package and the container import each other)."""

    accounts: Accounts
    users: UserRepository
    fitness: FitnessService
    api_keys: ApiKeyService
    clock: Callable[[], datetime]
    # None when provider connections or the OAuth 2.0 server are not configured.
    connections: ConnectionService | None = None
    grants: AuthorizationServer | None = None


class AccountService:
    """Built on the other services (``AccountParts``), each used through its own API;
    only the account-wide statements are its own (``SqlAccountStore``)."""

    def __init__(self, parts: AccountParts, store: SqlAccountStore,
                 signal: Callable[[], Awaitable[None]]) -> None:
        self._svc = parts
        self._store = store
        # Moves the cross-process revocation signal after a commit: every process then
        # re-reads the person's state (token version, existence) and drops cached keys.
        self._signal = signal

    async def verify_password(self, user: User, password: str) -> bool:
        return await self._svc.accounts.verify_password(user, password)

    async def change_password(self, user: User, new_password: str) -> User:
        """The new password; every token of the person ends. Returns the fresh user."""
        password_hash = await self._svc.accounts.hash_password(new_password)
        await self._store.set_password(user.id, password_hash)
        await self._signal()
        fresh = await self._svc.users.get(user.id)
        assert fresh is not None
        return fresh

    async def export(self, user: User) -> bytes:
        """One zip: the account, every activity with its streams, the original files,
        settings, daily health, connections (no token) and API keys (no secret)."""
        svc = self._svc
        owner = Owner(user.id, user.tenant_id)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("account.json", _json({
                "id": str(user.id), "email": user.email, "display_name": user.display_name,
                "role": user.role.value, "created_at": _iso(user.created_at),
                "exported_at": _iso(svc.clock()),
            }))  # fmt: skip
            cursor: str | None = None
            count = 0
            while True:
                page = await svc.fitness.page(owner, ActivityFilter(), limit=200,
                                              cursor=cursor)
                for item in page.items:
                    detail = activity_json(item, detail=True)
                    detail["streams"] = (await svc.fitness.streams(owner, item.id)).to_json()
                    archive.writestr(f"activities/{item.id}.json", _json(detail))
                    count += 1
                cursor = page.next_cursor
                if cursor is None:
                    break
            for sha, name, data in await svc.fitness.store.originals(user.id):
                safe = (name or "file").replace("/", "_").replace("\\", "_")[-120:]
                archive.writestr(f"originals/{sha[:16]}-{safe}", data)
            archive.writestr("settings.json", _json(await svc.fitness.athlete(owner)))
            today = svc.clock().astimezone(UTC).date()
            days = await svc.fitness.store.daily(user.id, date(1970, 1, 1), today)
            archive.writestr("daily.json", _json(daily_json(days)))
            connections: dict[str, Any] = {}
            if svc.connections is not None:
                connections = await svc.connections.status(user.id)
            archive.writestr("connections.json", _json(connections))
            keys = [
                {"id": key.id, "name": key.name, "tier": key.tier.value,
                 "created_at": _iso(key.created_at),
                 "last_used_at": _iso(key.last_used_at) if key.last_used_at else None,
                 "expires_at": _iso(key.expires_at) if key.expires_at else None,
                 "used_last_30_days": used}
                for key, used in await svc.api_keys.list_for(user.id)
            ]  # fmt: skip
            archive.writestr("api_keys.json", _json(keys))
            archive.writestr("README.txt", (
                f"Pacekeeper data export for {user.email}: {count} activities.\n"
                "activities/: one JSON file per activity (summary, laps, metrics, sources\n"
                "and the 1 Hz streams; null marks a second without a sample). originals/:\n"
                "the files you imported, as they came. settings.json, daily.json,\n"
                "connections.json (no tokens), api_keys.json (metadata only: secrets are\n"
                "never stored).\n"))
        return buffer.getvalue()

    async def erase(self, user: User) -> dict[str, Any]:
        """Deauthorise every connected provider, then delete every row of the person."""
        svc = self._svc
        deauthorized: list[str] = []
        if svc.connections is not None:
            status = await svc.connections.status(user.id)
            for provider in status.get("connected_providers", []):
                outcome = await svc.connections.disconnect(user.id, provider)
                if outcome.get("deauthorized"):
                    deauthorized.append(provider)
        await self._store.erase(user.id, user.tenant_id)
        await self._signal()
        return {"deleted": True, "deauthorized_providers": deauthorized}

    async def assistants(self, user: User) -> list[Assistant]:
        """The OAuth clients with a live grant of the person's."""
        grants = await self._store.live_grants(user.id, self._svc.clock())
        found: dict[str, tuple[set[str], datetime]] = {}
        for g in grants:
            scopes, first = found.get(g.client_id, (set(), g.created_at))
            scopes.update(g.scope.split())
            found[g.client_id] = (scopes, min(first, g.created_at))
        names = await self._store.client_names(list(found)) if found else {}
        return [Assistant(c, names.get(c) or c, sorted(scopes), first)
                for c, (scopes, first) in found.items()]

    async def revoke_assistant(self, user: User, client_id: str) -> int:
        """End every grant of one client (its refresh tokens and, through the revocation
        signal, its access tokens); how many."""
        now = self._svc.clock()
        families = {g.family_id for g in await self._store.live_grants(user.id, now)
                    if g.client_id == client_id}
        grants = self._svc.grants
        if grants is not None:
            for family in families:
                await grants.revoke_family(uuid.UUID(str(family)), now)
        return len(families)


__all__ = ["AccountParts", "AccountService", "Assistant"]
