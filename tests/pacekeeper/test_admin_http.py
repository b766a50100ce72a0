"""Admin endpoints (issue 17, the Admin page): users disabled and enabled (ACC-8), tenants
and plans, the stored registration mode (ACC-2 and the `closed` mode), each refused to
anyone who is not an admin; SQLite and PostgreSQL."""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mcpcast.transports.subscribe import SubscriberInfo
from pacekeeper.http.admin import admin_routes
from pacekeeper.live import live_topic
from pacekeeper.mcp._activity import ToolActivity
from pacekeeper.mcp._mount import _topic_owner_only
from tests.pacekeeper.conftest import PASSWORD, Harness

ADMIN = "root@example.com"


@pytest.fixture
async def h(harness_factory: Any) -> AsyncIterator[Harness]:
    async with harness_factory(admin_email=ADMIN, admin_password=PASSWORD) as harness:
        yield harness


async def _bearer(h: Harness, email: str) -> dict[str, str]:
    login = await h.login(email)
    assert login.status_code == 200, login.text
    h.client.cookies.clear()
    return {"authorization": f"Bearer {login.json()['jwt_token']}"}


async def _admin(h: Harness) -> dict[str, str]:
    return await _bearer(h, ADMIN)


async def _user(h: Harness, email: str, **extra: Any) -> tuple[dict[str, str], uuid.UUID]:
    body = await h.register(email, **extra)
    h.client.cookies.clear()
    return {"authorization": f"Bearer {body['token']}"}, uuid.UUID(body["user_id"])


async def _with_cookies(h: Harness, cookies: dict[str, str]) -> Any:
    """GET /api/activities with only this cookie session."""
    h.client.cookies.clear()
    h.client.cookies.update(cookies)
    try:
        return await h.client.get("/api/activities")
    finally:
        h.client.cookies.clear()


def _operations(user_id: uuid.UUID, tenant_id: uuid.UUID) -> list[tuple[str, str, Any]]:
    return [
        ("GET", "/api/admin/users", None),
        ("PATCH", f"/api/admin/users/{user_id}", {"status": "disabled"}),
        ("GET", "/api/admin/tenants", None),
        ("POST", "/api/admin/tenants", {"name": "Club"}),
        ("PATCH", f"/api/admin/tenants/{tenant_id}", {"plan": "enterprise"}),
        ("GET", "/api/admin/plans", None),
        ("GET", "/api/admin/registration", None),
        ("PUT", "/api/admin/registration", {"mode": "open"}),
    ]


async def test_every_admin_path_refuses_everyone_but_an_admin(h: Harness) -> None:
    """No credentials: 401. A user of another tenant, and a user in the admin's own tenant
    (created there by the admin): 403, and nothing changes. (Every admin administers the
    whole service: there is no tenant admin role to refuse.) An API key of the admin: 401
    (keys are for agents, not administration), and so is an OAuth access token of the admin
(delegated to an assistant for /mcp only). The admin's cookie session without the
    CSRF header: 403 csrf_failed on every write."""
    admin = await _admin(h)
    admin_id = uuid.UUID((await h.client.get("/api/admin/users", params={"q": "root"},
                                             headers=admin)).json()["users"][0]["id"])
    tenants = (await h.client.get("/api/admin/tenants", headers=admin)).json()["tenants"]
    admin_tenant = next(t for t in tenants if t["users"] == 1)["id"]
    outsider, victim_id = await _user(h, "outsider@example.com")
    colleague_body = await h.client.post("/api/auth/register", headers=admin, json={
        "email": "in-tenant@example.com", "password": PASSWORD, "tenant_id": admin_tenant})
    assert colleague_body.status_code == 201
    in_tenant = {"authorization": f"Bearer {colleague_body.json()['token']}"}
    key = (await h.client.post("/api/keys", headers=admin,
                               json={"name": "admin agent", "tier": "trial"})).json()["api_key"]
    # An OAuth access token of the admin (scoped, for an assistant): /mcp only.
    admin_user = await h.services.users.get_by_email(ADMIN)
    assert admin_user is not None
    delegated = {"authorization": "Bearer " + h.services.tokens.issue(
        admin_user, scope="fitness:read fitness:write", client_id="assistant").token}
    assert await h.services.resolver.resolve(delegated, delegated=True) is not None  # valid
    for method, path, body in _operations(victim_id, uuid.UUID(admin_tenant)):
        nobody = await h.client.request(method, path, json=body)
        assert nobody.status_code == 401, (method, path)
        assert nobody.headers["www-authenticate"].startswith("Bearer ")
        for who in (outsider, in_tenant):
            refused = await h.client.request(method, path, json=body, headers=who)
            assert refused.status_code == 403, (method, path, refused.text)
            assert refused.json() == {"error": "forbidden", "message": "administrators only"}
        as_key = await h.client.request(method, path, json=body, headers={"x-api-key": key})
        assert as_key.status_code == 401, (method, path)
        as_oauth = await h.client.request(method, path, json=body, headers=delegated)
        assert as_oauth.status_code == 401, (method, path, as_oauth.text)
    # Nothing changed: the victim still works, no tenant was added, the mode is the env's.
    assert (await h.client.get("/api/activities", headers=outsider)).status_code == 200
    listed = (await h.client.get("/api/admin/tenants", headers=admin)).json()["tenants"]
    assert {t["name"] for t in listed}.isdisjoint({"Club"})
    assert (await h.client.get("/api/admin/registration", headers=admin)).json()["source"] \
        == "environment"
    # The admin's cookie session: reads work, writes need the CSRF header.
    login = await h.login(ADMIN)
    csrf = login.json()["csrf_token"]
    for method, path, body in _operations(victim_id, uuid.UUID(admin_tenant)):
        answer = await h.client.request(method, path, json=body)
        if method == "GET":
            assert answer.status_code == 200, (path, answer.text)
        else:
            assert answer.status_code == 403 and answer.json()["error"] == "csrf_failed", path
    with_csrf = await h.client.put("/api/admin/registration", json={"mode": "open"},
                                   headers={"x-csrf-token": csrf})
    assert with_csrf.status_code == 200 and with_csrf.json()["source"] == "stored"
    assert admin_id != victim_id


async def test_disabling_ends_sessions_tokens_and_keys_at_once(h: Harness) -> None:
    """ACC-8 through the admin endpoint: the person's cookie session, bearer token and API
    key are "invalid token" on their next request; enabling lets them sign in again, the
    key works again, and tokens from before the disable stay dead."""
    admin = await _admin(h)
    bearer, user_id = await _user(h, "rider@example.com")
    key = (await h.client.post("/api/keys", headers=bearer,
                               json={"name": "agent", "tier": "trial"})).json()["api_key"]
    assert (await h.login("rider@example.com")).status_code == 200
    cookies = dict(h.client.cookies)
    h.client.cookies.clear()
    assert (await h.client.get("/a2a/tools", headers={"x-api-key": key})).status_code == 200
    assert (await _with_cookies(h, cookies)).status_code == 200

    off = await h.client.patch(f"/api/admin/users/{user_id}", headers=admin,
                               json={"status": "disabled"})
    assert off.status_code == 200, off.text
    assert off.json()["user"]["status"] == "disabled"
    for answer in (await h.client.get("/api/activities", headers=bearer),
                   await _with_cookies(h, cookies)):
        assert answer.status_code == 401
        assert answer.json() == {"error": "invalid_token", "message": "invalid token"}
    h.client.cookies.clear()
    refused_key = await h.client.get("/a2a/tools", headers={"x-api-key": key})
    assert refused_key.status_code == 401
    assert (await h.login("rider@example.com")).status_code == 401

    on = await h.client.patch(f"/api/admin/users/{user_id}", headers=admin,
                              json={"status": "active"})
    assert on.status_code == 200 and on.json()["user"]["status"] == "active"
    assert (await h.client.get("/api/activities", headers=bearer)).status_code == 401
    assert (await h.client.get("/a2a/tools", headers={"x-api-key": key})).status_code == 200
    assert (await h.login("rider@example.com")).status_code == 200


async def test_user_status_changes_refuse_bad_input(h: Harness) -> None:
    admin = await _admin(h)
    me = (await h.client.get("/api/admin/users", params={"q": ADMIN},
                             headers=admin)).json()["users"][0]
    assert me["role"] == "admin"
    self_disable = await h.client.patch(f"/api/admin/users/{me['id']}", headers=admin,
                                        json={"status": "disabled"})
    assert self_disable.status_code == 409
    assert self_disable.json()["message"] == "you cannot disable your own account"
    assert (await h.client.get("/api/admin/users", headers=admin)).status_code == 200
    for path, body, status in (
        (f"/api/admin/users/{uuid.uuid4()}", {"status": "disabled"}, 404),
        ("/api/admin/users/not-a-uuid", {"status": "disabled"}, 404),
        (f"/api/admin/users/{me['id']}", {"status": "sleeping"}, 400),
        (f"/api/admin/users/{me['id']}", {}, 400),
    ):
        answer = await h.client.patch(path, headers=admin, json=body)
        assert answer.status_code == status, (path, body, answer.text)
        assert set(answer.json()) == {"error", "message"}


async def test_users_are_listed_filtered_and_paged(h: Harness) -> None:
    admin = await _admin(h)
    for name in ("ann", "bob", "cat", "dan"):
        await _user(h, f"{name}@example.com")
    first = (await h.client.get("/api/admin/users", params={"limit": 2},
                                headers=admin)).json()
    assert [u["email"] for u in first["users"]] == ["ann@example.com", "bob@example.com"]
    rest = (await h.client.get("/api/admin/users", params={"after": first["next_after"]},
                               headers=admin)).json()
    assert [u["email"] for u in rest["users"]] == ["cat@example.com", "dan@example.com",
                                                   ADMIN]
    assert rest["next_after"] is None
    found = (await h.client.get("/api/admin/users", params={"q": "B%"}, headers=admin)).json()
    assert found["users"] == []  # % is a character here, not a wildcard
    found = (await h.client.get("/api/admin/users", params={"q": "BOB"}, headers=admin)).json()
    assert [u["email"] for u in found["users"]] == ["bob@example.com"]
    assert found["users"][0]["status"] == "active" and found["users"][0]["tenant_name"]
    for bad in ({"limit": "0"}, {"limit": "x"}, {"tenant_id": "nope"}, {"q": "x" * 321}):
        assert (await h.client.get("/api/admin/users", params=bad,
                                   headers=admin)).status_code == 400, bad


async def test_tenants_created_and_their_plan_and_limit_changed(h: Harness) -> None:
    """A new tenant; a user placed in it; the plan decides the key tiers its users may
    create, at once; the rate limit applies to their next request."""
    admin = await _admin(h)
    made = await h.client.post("/api/admin/tenants", headers=admin,
                               json={"name": "Harriers AC", "slug": "harriers"})
    assert made.status_code == 201, made.text
    tenant = made.json()["tenant"]
    assert tenant["plan"] == "free" and tenant["users"] == 0 and tenant["slug"] == "harriers"
    twice = await h.client.post("/api/admin/tenants", headers=admin,
                                json={"name": "Other", "slug": "harriers"})
    assert twice.status_code == 409
    generated = (await h.client.post("/api/admin/tenants", headers=admin,
                                     json={"name": "Ünïcode Club!"})).json()["tenant"]
    assert re.fullmatch(r"n-code-club-[0-9a-f]{6}", generated["slug"]), generated
    created = await h.client.post("/api/auth/register", headers=admin, json={
        "email": "member@example.com", "password": PASSWORD, "tenant_id": tenant["id"]})
    member = {"authorization": f"Bearer {created.json()['token']}"}
    starter = {"name": "s", "tier": "starter"}
    assert (await h.client.post("/api/keys", headers=member, json=starter)).status_code == 403

    changed = await h.client.patch(f"/api/admin/tenants/{tenant['id']}", headers=admin,
                                   json={"plan": "starter", "rate_limit_per_minute": 7})
    assert changed.status_code == 200, changed.text
    assert changed.json()["tenant"] == {**tenant, "plan": "starter",
                                             "rate_limit_per_minute": 7, "users": 1}
    assert (await h.client.post("/api/keys", headers=member, json=starter)).status_code == 201
    listed = await h.client.get("/api/activities", headers=member)
    assert listed.headers["x-ratelimit-limit"] == "7"
    cleared = await h.client.patch(f"/api/admin/tenants/{tenant['id']}", headers=admin,
                                   json={"rate_limit_per_minute": None})
    assert cleared.json()["tenant"]["rate_limit_per_minute"] is None
    listed = await h.client.get("/api/activities", headers=member)
    assert listed.headers["x-ratelimit-limit"] != "7"
    plans = (await h.client.get("/api/admin/plans", headers=admin)).json()["plans"]
    assert {"name": "starter", "key_tiers": ["starter", "trial"]} in plans
    for method, path, body, status in (
        ("POST", "/api/admin/tenants", {"name": ""}, 400),
        ("POST", "/api/admin/tenants", {"name": "x", "plan": "gold"}, 400),
        ("POST", "/api/admin/tenants", {"name": "x", "slug": "Bad Slug"}, 400),
        ("POST", "/api/admin/tenants", {"name": "x", "rate_limit_per_minute": 0}, 400),
        ("POST", "/api/admin/tenants", {"name": "x", "rate_limit_per_minute": True}, 400),
        ("PATCH", f"/api/admin/tenants/{tenant['id']}", {}, 400),
        ("PATCH", f"/api/admin/tenants/{uuid.uuid4()}", {"plan": "free"}, 404),
        ("PATCH", "/api/admin/tenants/nope", {"plan": "free"}, 404),
    ):
        answer = await h.client.request(method, path, headers=admin, json=body)
        assert answer.status_code == status, (method, path, body, answer.text)


async def test_registration_mode_is_stored_and_enforced(h: Harness) -> None:
    """ACC-2 with the mode an admin stored: `admin` needs an admin token (401 without,
    403 for a user's), `closed` refuses everyone over HTTP, `open` lets anyone in; the
    landing page offers registration only when open."""
    admin = await _admin(h)
    user, _ = await _user(h, "early@example.com")
    state = (await h.client.get("/api/admin/registration", headers=admin)).json()
    assert state == {"mode": "open", "source": "environment",
                     "modes": ["open", "admin", "closed"]}
    new = {"email": "late@example.com", "password": PASSWORD}

    assert (await h.client.put("/api/admin/registration", headers=admin,
                               json={"mode": "admin"})).json()["mode"] == "admin"
    assert 'class="register' not in (await h.client.get("/")).text
    anonymous = await h.client.post("/api/auth/register", json=new)
    assert anonymous.status_code == 401
    as_user = await h.client.post("/api/auth/register", json=new, headers=user)
    assert as_user.status_code == 403
    assert as_user.json()["message"] == "registration requires an admin token"

    await h.client.put("/api/admin/registration", headers=admin, json={"mode": "closed"})
    for headers in ({}, user, admin):
        closed = await h.client.post("/api/auth/register", json=new, headers=headers)
        assert closed.status_code == 403, closed.text
        assert closed.json() == {"error": "forbidden",
                                 "message": "registration is closed on this server"}

    await h.client.put("/api/admin/registration", headers=admin, json={"mode": "open"})
    assert 'class="register' in (await h.client.get("/")).text
    assert (await h.client.post("/api/auth/register", json=new)).status_code == 201
    bad = await h.client.put("/api/admin/registration", headers=admin, json={"mode": "invite"})
    assert bad.status_code == 400 and "open, admin, closed" in bad.json()["message"]
    assert (await h.client.get("/api/admin/registration", headers=admin)).json()["mode"] \
        == "open"


async def test_only_an_admin_places_a_new_account_in_a_tenant(h: Harness) -> None:
    """Open registration makes a personal tenant; naming another tenant (say, one on the
    enterprise plan, to create its key tiers and share its limit) is for admins only:
    anonymous and user callers get 403 and no account is made."""
    admin = await _admin(h)
    club = (await h.client.post("/api/admin/tenants", headers=admin, json={
        "name": "Rich club", "plan": "enterprise"})).json()["tenant"]
    user, _ = await _user(h, "member@example.com")
    for who in ({}, user):
        joined = await h.client.post("/api/auth/register", headers=who, json={
            "email": "joiner@example.com", "password": PASSWORD, "tenant_id": club["id"]})
        assert joined.status_code == 403, joined.text
        assert joined.json()["message"] == "only an admin may choose the tenant"
    found = (await h.client.get("/api/admin/users", params={"q": "joiner"},
                                headers=admin)).json()["users"]
    assert found == []
    tenants = (await h.client.get("/api/admin/tenants", headers=admin)).json()["tenants"]
    assert next(t for t in tenants if t["id"] == club["id"])["users"] == 0


def test_the_refusal_test_names_every_admin_route() -> None:
    """`test_every_admin_path_refuses_everyone_but_an_admin` walks `_operations`: every
    method of every admin route is in it, so a new route cannot go untested."""
    user_id, tenant_id = uuid.uuid4(), uuid.uuid4()
    walked = {(method, path.replace(str(user_id), "{user_id}")
               .replace(str(tenant_id), "{tenant_id}"))
              for method, path, _ in _operations(user_id, tenant_id)}
    served = {(method, route.path) for route in admin_routes()
              for method in route.methods or () if method != "HEAD"}
    assert served == walked


async def test_disabling_ends_an_open_live_feed_without_charging_the_tenant(h: Harness) -> None:
    """ACC-8 on the Live panel's topic: the topic hook, asked again for an open feed
    (`SubscriberInfo.recheck`), says no once the person is disabled; asking again takes
    nothing from the tenant's bucket (only opening a feed is a request)."""
    admin = await _admin(h)
    bearer, user_id = await _user(h, "watcher@example.com")
    authorize = _topic_owner_only(lambda: h.services, frozenset(),
                                  ToolActivity(lambda: h.services))
    opened = SubscriberInfo(dict(bearer), "GET", f"/user.{user_id}", None, {})
    again = dataclasses.replace(opened, recheck=True)
    topic = live_topic(user_id)

    assert await authorize(opened, topic) is True
    before = (await h.client.get("/api/activities", headers=bearer)).headers
    for _ in range(5):
        assert await authorize(again, topic) is True
    after = (await h.client.get("/api/activities", headers=bearer)).headers
    assert int(before["x-ratelimit-remaining"]) - int(after["x-ratelimit-remaining"]) <= 1
    off = await h.client.patch(f"/api/admin/users/{user_id}", headers=admin,
                               json={"status": "disabled"})
    assert off.status_code == 200
    assert await authorize(again, topic) is False
    assert await authorize(opened, topic) is False
