"""Helpers for API key tests: users with plans, admins, keys."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import update

from pacekeeper.db import Role, TenantRow, session_factory
from tests.pacekeeper.conftest import PASSWORD, Harness


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def user_token(h: Harness, email: str, plan: str | None = None) -> str:
    """Register `email` (a personal tenant) and return its JWT; optionally set the plan."""
    body = await h.register(email)
    if plan is not None:
        user = await h.services.users.get(uuid.UUID(body["user_id"]))
        assert user is not None
        async with session_factory(h.services.engine)() as session:
            await session.execute(
                update(TenantRow).where(TenantRow.id == user.tenant_id).values(plan=plan)
            )
            await session.commit()
    token: str = body["token"]
    return token


async def admin_token(h: Harness, email: str = "root@example.com") -> str:
    await h.services.accounts.register(email, PASSWORD, role=Role.ADMIN)
    response = await h.login(email)
    assert response.status_code == 200, response.text
    h.client.cookies.clear()  # the login set cookies; these tests use the bearer header
    token: str = response.json()["jwt_token"]
    return token


async def create_key(h: Harness, token: str, tier: str = "trial", name: str = "agent",
                     **extra: Any) -> dict[str, Any]:
    response = await h.client.post(
        "/api/keys", json={"name": name, "tier": tier, **extra}, headers=bearer(token)
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body
