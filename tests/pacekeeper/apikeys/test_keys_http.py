"""/api/keys over HTTP on SQLite and PostgreSQL (KEY-1, KEY-2, KEY-3, KEY-7)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from sqlalchemy import select

from pacekeeper.apikeys import ApiKeyRow, Tier, tiers_for_plan
from pacekeeper.db import session_factory
from tests.pacekeeper.apikeys._helpers import admin_token, bearer, create_key, user_token
from tests.pacekeeper.conftest import Harness


async def test_create_returns_the_secret_once(harness: Harness) -> None:
    """KEY-1: name, tier, api_key, created_at; the secret is never shown again (KEY-7)."""
    token = await user_token(harness, "ann@example.com")
    body = await create_key(harness, token, "trial", "my agent")
    assert body["name"] == "my agent" and body["tier"] == "trial"
    assert body["api_key"].startswith("pk_live_" + body["id"] + "_")
    assert len(body["api_key"]) == len("pk_live_") + 16 + 1 + 43  # 256-bit secret
    assert body["created_at"].endswith("Z")
    listing = await harness.client.get("/api/keys", headers=bearer(token))
    assert listing.status_code == 200
    assert body["api_key"] not in listing.text
    # The secret is everything after "pk_live_<id>_" (base64url: it may hold "_" itself).
    secret_part = body["api_key"][len("pk_live_" + body["id"] + "_"):]
    assert secret_part not in listing.text
    (entry,) = listing.json()["keys"]
    assert entry["id"] == body["id"] and entry["prefix"] == "pk_live_" + body["id"]
    assert set(entry) >= {"id", "name", "tier", "prefix", "created_at", "last_used_at",
                          "expires_at", "usage"}
    assert entry["usage"] == {"used": 0, "limit": 1000, "window_days": 30}
    assert "api_key" not in entry and "secret_hash" not in entry


async def test_key_is_stored_only_as_its_sha256(harness: Harness) -> None:
    """KEY-3: the database holds a SHA-256 digest, never the key text."""
    token = await user_token(harness, "hash@example.com")
    body = await create_key(harness, token)
    async with session_factory(harness.services.engine)() as session:
        row = await session.scalar(select(ApiKeyRow).where(ApiKeyRow.id == body["id"]))
    assert row is not None
    assert row.secret_hash == hashlib.sha256(body["api_key"].encode()).hexdigest()
    assert body["api_key"] not in repr(row.__dict__)


@pytest.mark.parametrize("tier", ["gold", "", 3, None, "TRIAL"])
async def test_unknown_tier_is_400_and_nothing_stored(harness: Harness, tier: Any) -> None:
    """KEY-2: tier must be one of the four; anything else is 400 and no key is made."""
    token = await user_token(harness, "tiers@example.com")
    response = await harness.client.post(
        "/api/keys", json={"name": "x", "tier": tier}, headers=bearer(token)
    )
    assert response.status_code == 400
    assert response.json()["error"] == "validation_error"
    assert "tier" in response.json()["message"]
    assert (await harness.client.get("/api/keys", headers=bearer(token))).json()["keys"] == []


@pytest.mark.parametrize(
    "body", [{"tier": "trial"}, {"name": "", "tier": "trial"}, {"name": "x" * 101, "tier": "trial"},
             {"name": 5, "tier": "trial"}],
)
async def test_bad_name_is_400(harness: Harness, body: dict[str, Any]) -> None:
    token = await user_token(harness, "names@example.com")
    response = await harness.client.post("/api/keys", json=body, headers=bearer(token))
    assert response.status_code == 400
    assert "name" in response.json()["message"]


async def test_creating_needs_a_jwt(harness: Harness) -> None:
    """ERR-2: no JWT is 401 with WWW-Authenticate."""
    response = await harness.client.post("/api/keys", json={"name": "x", "tier": "trial"})
    assert response.status_code == 401
    assert "WWW-Authenticate" in response.headers
    assert response.json()["message"] == "authentication required"


@pytest.mark.parametrize(
    ("plan", "allowed"),
    [("free", {"trial"}), ("starter", {"trial", "starter"}),
     ("professional", {"trial", "starter", "professional"}),
     ("enterprise", {"trial", "starter", "professional", "enterprise"})],
)
async def test_users_get_only_the_tiers_of_their_plan(
    harness: Harness, plan: str, allowed: set[str]
) -> None:
    """Tenant plan limits: other tiers are 403 and create nothing."""
    token = await user_token(harness, f"{plan}@example.com", plan=plan)
    assert {t.value for t in tiers_for_plan(plan)} == allowed
    for tier in Tier:
        response = await harness.client.post(
            "/api/keys", json={"name": tier.value, "tier": tier.value}, headers=bearer(token)
        )
        if tier.value in allowed:
            assert response.status_code == 201, response.text
        else:
            assert response.status_code == 403, response.text
            assert plan in response.json()["message"]
    listed = (await harness.client.get("/api/keys", headers=bearer(token))).json()["keys"]
    assert {k["tier"] for k in listed} == allowed


async def test_admin_creates_any_tier_for_any_user(harness: Harness) -> None:
    """KEY-1: an admin may create keys of any tier, also for another user."""
    user = await harness.register("owner@example.com")
    admin = await admin_token(harness)
    body = await create_key(harness, admin, "enterprise", user_id=user["user_id"])
    assert body["user_id"] == user["user_id"] and body["tier"] == "enterprise"
    owned = (await harness.client.get("/api/keys", headers=bearer(user["token"]))).json()
    assert [k["id"] for k in owned["keys"]] == [body["id"]]
    as_admin = await harness.client.get(
        "/api/keys", params={"user_id": user["user_id"]}, headers=bearer(admin)
    )
    assert [k["id"] for k in as_admin.json()["keys"]] == [body["id"]]


async def test_users_cannot_act_for_others(harness: Harness) -> None:
    a = await harness.register("a@example.com")
    b = await harness.register("b@example.com")
    made = await harness.client.post(
        "/api/keys", json={"name": "x", "tier": "trial", "user_id": b["user_id"]},
        headers=bearer(a["token"]),
    )
    assert made.status_code == 403
    listed = await harness.client.get(
        "/api/keys", params={"user_id": b["user_id"]}, headers=bearer(a["token"])
    )
    assert listed.status_code == 403
    key_b = await create_key(harness, b["token"])
    deleted = await harness.client.delete(f"/api/keys/{key_b['id']}", headers=bearer(a["token"]))
    assert deleted.status_code == 404
    still = (await harness.client.get("/api/keys", headers=bearer(b["token"]))).json()["keys"]
    assert [k["id"] for k in still] == [key_b["id"]]


async def test_cookie_callers_need_csrf(harness: Harness) -> None:
    """CSRF-3: a cookie session creating or deleting a key needs X-CSRF-Token."""
    await harness.register("cookie@example.com")
    login = await harness.login("cookie@example.com")
    csrf = login.json()["csrf_token"]
    refused = await harness.client.post("/api/keys", json={"name": "x", "tier": "trial"})
    assert refused.status_code == 403 and refused.json()["error"] == "csrf_failed"
    made = await harness.client.post(
        "/api/keys", json={"name": "x", "tier": "trial"}, headers={"X-CSRF-Token": csrf}
    )
    assert made.status_code == 201
    key_id = made.json()["id"]
    assert (await harness.client.delete(f"/api/keys/{key_id}")).status_code == 403
    assert (await harness.client.get("/api/keys")).json()["keys"][0]["id"] == key_id
    gone = await harness.client.delete(f"/api/keys/{key_id}", headers={"X-CSRF-Token": csrf})
    assert gone.status_code == 204


async def test_delete_unknown_is_404(harness: Harness) -> None:
    token = await user_token(harness, "del@example.com")
    response = await harness.client.delete("/api/keys/0123456789abcdef", headers=bearer(token))
    assert response.status_code == 404 and response.json()["error"] == "not_found"


@pytest.mark.parametrize("user_id", [None, 5, "not-a-uuid"])
async def test_bad_user_id_is_400(harness: Harness, user_id: Any) -> None:
    admin = await admin_token(harness)
    response = await harness.client.post(
        "/api/keys", json={"name": "x", "tier": "trial", "user_id": user_id},
        headers=bearer(admin),
    )
    assert response.status_code == 400
    assert "user_id" in response.json()["message"]


async def test_405_lists_both_methods(harness: Harness) -> None:
    response = await harness.client.put("/api/keys")
    assert response.status_code == 405
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}
