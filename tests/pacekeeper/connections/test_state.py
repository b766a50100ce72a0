"""The callback's state checks: nonce, user, single use, expiry, provider (PROV-1..4)."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qsl, urlencode

from sqlalchemy import text

from tests.pacekeeper.connections.conftest import ConnHarness


def _with_query(callback: str, **changes: str) -> str:
    path, _, query = callback.partition("?")
    params = dict(parse_qsl(query))
    params.update(changes)
    return f"{path}?{urlencode(params)}"


def _state_of(callback: str) -> str:
    return dict(parse_qsl(callback.partition("?")[2]))["state"]


async def _rows(conn: ConnHarness, table: str) -> list[dict[str, object]]:
    async with conn.services.engine.connect() as db:
        result = await db.execute(text(f"SELECT * FROM {table}"))  # noqa: S608 - fixed names
        return [dict(row._mapping) for row in result]


async def _status(conn: ConnHarness, headers: dict[str, str]) -> dict[str, object]:
    body: dict[str, object] = (await conn.client.get("/oauth/status", headers=headers)).json()
    return body


async def test_replayed_state_is_refused(conn: ConnHarness) -> None:
    """PROV-3 (anti-replay): the second use of a callback URL connects nothing new."""
    user_id, headers = await conn.user("replay@example.com")
    callback = await conn.approve(await conn.authorization_url("strava", user_id, headers))
    assert 'data-outcome="success"' in (await conn.client.get(callback)).text
    again = await conn.client.get(callback)
    assert again.status_code == 400
    assert "already used" in again.text
    assert len(await _rows(conn, "provider_connections")) == 1


async def test_concurrent_callbacks_with_one_state_connect_once(conn: ConnHarness) -> None:
    """PROV-3: one atomic consume, so of five simultaneous callbacks exactly one wins."""
    user_id, headers = await conn.user("race@example.com")
    callback = await conn.approve(await conn.authorization_url("fitbit", user_id, headers))
    pages = await asyncio.gather(*(conn.client.get(callback) for _ in range(5)))
    assert sorted(p.status_code for p in pages) == [200, 400, 400, 400, 400]


async def test_state_swapped_to_another_user_is_refused(conn: ConnHarness) -> None:
    """PROV-3 (anti-spoofing): A's nonce under B's user id connects nobody."""
    a_id, a_headers = await conn.user("victim@example.com")
    b_id, b_headers = await conn.user("attacker@example.com")
    callback = await conn.approve(await conn.authorization_url("strava", a_id, a_headers))
    nonce = _state_of(callback).split(":", 1)[1]
    page = await conn.client.get(_with_query(callback, state=f"{b_id}:{nonce}"))
    assert page.status_code == 400
    assert "another account" in page.text
    assert (await _status(conn, b_headers))["connected_providers"] == []
    assert (await _status(conn, a_headers))["connected_providers"] == []


async def test_signed_in_browser_of_another_user_is_refused(conn: ConnHarness) -> None:
    """PROV-3: a session cookie for B cannot complete A's authorization (A still can)."""
    a_id, a_headers = await conn.user("owner@example.com")
    b_id, _ = await conn.user("other-session@example.com")
    callback = await conn.approve(await conn.authorization_url("fitbit", a_id, a_headers))
    assert (await conn.login("other-session@example.com")).status_code == 200  # B's cookies
    page = await conn.client.get(callback)
    assert page.status_code == 400 and "another account" in page.text
    for name in ("auth_token", "csrf_token"):  # B signs out; the flow's binding stays
        conn.client.cookies.delete(name)
    assert (await conn.client.get(callback)).status_code == 200
    assert (await _status(conn, a_headers))["connected_providers"] == ["fitbit"]
    assert b_id != a_id


async def test_expired_state_is_refused(conn: ConnHarness) -> None:
    """PROV-3: a state older than PACEKEEPER_PROVIDER_STATE_TTL_SECONDS is dead."""
    user_id, headers = await conn.user("slow@example.com")
    callback = await conn.approve(await conn.authorization_url("strava", user_id, headers))
    conn.clock.advance(seconds=601)
    page = await conn.client.get(callback)
    assert page.status_code == 400 and "expired" in page.text
    assert (await _status(conn, headers))["connected_providers"] == []


async def test_state_for_another_provider_is_refused(conn: ConnHarness) -> None:
    """PROV-3: a Strava state presented to the Fitbit callback is refused, and stays unused."""
    user_id, headers = await conn.user("mixup@example.com")
    callback = await conn.approve(await conn.authorization_url("strava", user_id, headers))
    page = await conn.client.get(callback.replace("/callback/strava", "/callback/fitbit"))
    assert page.status_code == 400 and "another provider" in page.text
    assert (await conn.client.get(callback)).status_code == 200  # not burnt by the mix-up


async def test_malformed_or_missing_state_is_refused(conn: ConnHarness) -> None:
    """PROV-3: no state, a garbage state, a made-up nonce: clear page, nothing stored."""
    user_id, _ = await conn.user("garbage@example.com")
    for query in ("code=x", "code=x&state=nonsense", f"code=x&state={user_id}:made-up"):
        page = await conn.client.get(f"/api/oauth/callback/strava?{query}")
        assert page.status_code == 400 and "not valid" in page.text, query
    assert await _rows(conn, "provider_connections") == []


async def test_denied_consent_stores_nothing(conn: ConnHarness) -> None:
    """PROV-4: the person pressed Deny: a failure page, no connection."""
    user_id, headers = await conn.user("deny@example.com")
    url = await conn.authorization_url("fitbit", user_id, headers)
    response = await conn.client.get(f"{url}&sandbox_auto=deny")
    location = response.headers["location"]
    page = await conn.client.get(location.replace("https://pk.test", ""))
    assert page.status_code == 400 and "not granted" in page.text
    assert await _rows(conn, "provider_connections") == []


async def test_authorization_only_for_own_user_unless_admin(conn: ConnHarness) -> None:
    """PROV-1: another user's id is refused; unknown provider and no JWT are clear errors."""
    a_id, a_headers = await conn.user("self@example.com")
    b_id, _ = await conn.user("someone@example.com")
    other = await conn.client.get(f"/api/oauth/auth/strava/{b_id}", headers=a_headers)
    assert other.status_code == 403
    unknown = await conn.client.get(f"/api/oauth/auth/polar/{a_id}", headers=a_headers)
    assert unknown.status_code == 404 and "unknown provider" in unknown.json()["message"]
    anonymous = await conn.client.get(f"/api/oauth/auth/strava/{a_id}")
    assert anonymous.status_code == 401
    bad_id = await conn.client.get("/api/oauth/auth/strava/not-a-uuid", headers=a_headers)
    assert bad_id.status_code == 400


async def test_admin_may_start_for_another_user(conn_factory: object) -> None:
    """PROV-1: an admin may start the authorization for any user id."""
    async with conn_factory(  # type: ignore[operator]
        admin_email="boss@example.com", admin_password="s3cret-Passw0rd"
    ) as h:
        login = await h.login("boss@example.com")
        h.client.cookies.clear()
        admin_headers = {"authorization": f"Bearer {login.json()['jwt_token']}"}
        user_id, headers = await h.user("managed@example.com")
        url = await h.authorization_url("strava", user_id, admin_headers)
        page = await h.client.get(await h.approve(url))
        assert page.status_code == 200
        assert (await _status(h, headers))["connected_providers"] == ["strava"]


async def test_purge_forgets_old_states_only(conn: ConnHarness) -> None:
    """Housekeeping drops states a day past expiry; a fresh one survives."""
    user_id, headers = await conn.user("purge@example.com")
    await conn.authorization_url("strava", user_id, headers)
    service = conn.services.connections
    assert service is not None
    assert await service.purge(conn.clock()) == 0
    conn.clock.advance(days=1, seconds=700)
    assert await service.purge(conn.clock()) == 1
    assert await _rows(conn, "oauth_states") == []
