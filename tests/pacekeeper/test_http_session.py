"""Cookie sessions: CSRF checks, refresh, logout, tenant rate limit (both DBs)."""

from __future__ import annotations

import uuid
from typing import Any

import jwt
import jwt.utils
import pytest

from pacekeeper.errors import CsrfFailed
from tests.pacekeeper.conftest import Harness


async def _cookie_login(h: Harness, email: str) -> dict[str, Any]:
    h.client.cookies.clear()
    await h.register(email)
    h.client.cookies.clear()
    response = await h.login(email)
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


def _csrf_failed(response: Any) -> None:
    assert response.status_code == 403, response.text
    assert response.json()["error"] == "csrf_failed"
    assert "set-cookie" not in response.headers


async def test_cookie_refresh_with_csrf_resets_both_cookies(harness: Harness) -> None:
    """JWT-9, CSRF-1: cookie refresh gives a new JWT (24 h) and a new CSRF token (30 min)."""
    login = await _cookie_login(harness, "c@example.com")
    harness.clock.advance(minutes=10)
    response = await harness.client.post(
        "/api/auth/refresh", headers={"X-CSRF-Token": login["csrf_token"]}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"csrf_token", "expires_at"}
    assert body["csrf_token"] != login["csrf_token"]
    cookies = {c.split("=", 1)[0]: c for c in response.headers.get_list("set-cookie")}
    assert cookies["auth_token"].endswith("; HttpOnly; Secure; SameSite=Strict; Max-Age=86400")
    assert cookies["csrf_token"] == (
        f"csrf_token={body['csrf_token']}; Path=/; Secure; SameSite=Strict; Max-Age=1800"
    )
    new_jwt = cookies["auth_token"].split(";")[0].split("=", 1)[1]
    claims = jwt.decode(new_jwt, options={"verify_signature": False})
    assert claims["exp"] == int(harness.clock().timestamp()) + 86400
    # The old CSRF token was revoked; the new one works with the new cookies.
    harness.client.cookies.set("csrf_token", login["csrf_token"])
    _csrf_failed(
        await harness.client.post(
            "/api/auth/refresh", headers={"X-CSRF-Token": login["csrf_token"]}
        )
    )


async def test_bearer_refresh_returns_login_shape(harness: Harness) -> None:
    """JWT-9 (decisions): bearer callers get jwt_token, csrf_token, user, expires_at."""
    body = await harness.register("b@example.com")
    harness.client.cookies.clear()
    response = await harness.client.post(
        "/api/auth/refresh", headers={"Authorization": f"Bearer {body['token']}"}
    )
    assert response.status_code == 200
    data = response.json()
    assert set(data) == {"jwt_token", "csrf_token", "user", "expires_at"}
    assert data["user"] == {"id": body["user_id"], "email": "b@example.com"}
    assert data["jwt_token"] != body["token"]


async def test_missing_csrf_header_is_403(harness: Harness) -> None:
    """CSRF-3: a cookie-authenticated POST without X-CSRF-Token is rejected."""
    await _cookie_login(harness, "m@example.com")
    response = await harness.client.post("/api/auth/refresh")
    _csrf_failed(response)
    assert "X-CSRF-Token" in response.json()["message"]


async def test_csrf_header_must_equal_cookie(harness: Harness) -> None:
    """CSRF-4: a header different from the csrf_token cookie is rejected."""
    login = await _cookie_login(harness, "d@example.com")
    forged = login["csrf_token"][:-2] + ("AA" if not login["csrf_token"].endswith("AA") else "BB")
    _csrf_failed(
        await harness.client.post("/api/auth/refresh", headers={"X-CSRF-Token": forged})
    )
    harness.client.cookies.delete("csrf_token")
    _csrf_failed(
        await harness.client.post(
            "/api/auth/refresh", headers={"X-CSRF-Token": login["csrf_token"]}
        )
    )


async def test_csrf_token_of_another_user_is_rejected(harness: Harness) -> None:
    """CSRF-5: a valid CSRF token issued to someone else does not pass."""
    other = await _cookie_login(harness, "other@example.com")
    mine = await _cookie_login(harness, "mine@example.com")
    assert mine["csrf_token"] != other["csrf_token"]
    harness.client.cookies.set("csrf_token", other["csrf_token"])
    _csrf_failed(
        await harness.client.post(
            "/api/auth/refresh", headers={"X-CSRF-Token": other["csrf_token"]}
        )
    )


async def test_csrf_token_expires_after_30_minutes(harness: Harness) -> None:
    """CSRF-6: the JWT is still valid but a 30-minute-old CSRF token fails."""
    login = await _cookie_login(harness, "old@example.com")
    harness.clock.advance(minutes=30, seconds=1)
    response = await harness.client.post(
        "/api/auth/refresh", headers={"X-CSRF-Token": login["csrf_token"]}
    )
    _csrf_failed(response)
    assert "expired" in response.json()["message"]


async def test_csrf_token_made_up_is_rejected(harness: Harness) -> None:
    """CSRF-8: only tokens the server issued pass (equal cookie and header are not enough)."""
    await _cookie_login(harness, "mk@example.com")
    harness.client.cookies.set("csrf_token", "x" * 43)
    _csrf_failed(await harness.client.post("/api/auth/refresh", headers={"X-CSRF-Token": "x" * 43}))


async def test_safe_methods_and_bearer_skip_csrf(harness: Harness) -> None:
    """CSRF-7: GET/HEAD/OPTIONS need no CSRF token; bearer callers need none either."""
    login = await _cookie_login(harness, "safe@example.com")
    resolver = harness.services.resolver
    cookie = {"cookie": f"auth_token={login['jwt_token']}"}
    for method in ("GET", "HEAD", "OPTIONS", "get"):
        principal = await resolver.require(method, cookie)
        assert str(principal.user_id) == login["user"]["id"]
    for method in ("POST", "PUT", "DELETE", "PATCH"):
        with pytest.raises(CsrfFailed):
            await resolver.require(method, cookie)
    bearer = await resolver.require("DELETE", {"authorization": f"Bearer {login['jwt_token']}"})
    assert bearer.via == "bearer"


async def test_csrf_tokens_are_random_256_bits_and_stored_hashed(harness: Harness) -> None:
    """CSRF-8: 32 random bytes per token, bound to the user, never stored in clear."""
    user_id = uuid.UUID((await harness.register("h@example.com"))["user_id"])
    issued = {(await harness.services.csrf.issue(user_id)).token for _ in range(20)}
    assert len(issued) == 20
    assert all(len(jwt.utils.base64url_decode(t.encode())) == 32 for t in issued)
    repo = harness.services.csrf._repo
    for token in issued:
        assert await repo.get(token) is None  # looked up by digest only
    record = await repo.get(__import__("hashlib").sha256(next(iter(issued)).encode()).hexdigest())
    assert record is not None
    assert record.user_id == user_id


async def test_logout_clears_both_cookies(harness: Harness) -> None:
    """CSRF-2: empty values with Max-Age=0; the CSRF token stops working."""
    login = await _cookie_login(harness, "bye@example.com")
    response = await harness.client.post("/api/auth/logout")
    assert response.status_code == 200
    assert response.headers.get_list("set-cookie") == [
        "auth_token=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0",
        "csrf_token=; Path=/; Secure; SameSite=Strict; Max-Age=0",
    ]
    assert not harness.client.cookies.get("auth_token")
    # The JWT it ended is revoked (finding 13): "invalid token" before any CSRF check.
    harness.client.cookies.set("auth_token", login["jwt_token"])
    harness.client.cookies.set("csrf_token", login["csrf_token"])
    ended = await harness.client.post(
        "/api/auth/refresh", headers={"X-CSRF-Token": login["csrf_token"]}
    )
    assert ended.status_code == 401
    assert ended.json()["error"] == "invalid_token"
    # And the CSRF token is revoked too: a new session cannot use it.
    fresh = (await harness.login("bye@example.com")).json()
    harness.client.cookies.set("auth_token", fresh["jwt_token"])
    harness.client.cookies.set("csrf_token", login["csrf_token"])
    _csrf_failed(
        await harness.client.post(
            "/api/auth/refresh", headers={"X-CSRF-Token": login["csrf_token"]}
        )
    )


async def test_logout_without_session_still_clears(harness: Harness) -> None:
    """CSRF-2: logout never fails, even with broken cookies."""
    harness.client.cookies.set("csrf_token", "%;," * 500)
    response = await harness.client.post("/api/auth/logout")
    assert response.status_code == 200
    assert len(response.headers.get_list("set-cookie")) == 2


@pytest.mark.parametrize(
    "cookie",
    ["auth_token=garbage", "auth_token=a.b.c", 'auth_token="quoted"; csrf_token=x',
     "auth_token=" + "A" * 9000],
)
async def test_broken_auth_cookie_is_invalid_token(harness: Harness, cookie: str) -> None:
    """JWT-5, ERR-2: a broken auth cookie is 401 invalid token, never 500."""
    response = await harness.client.post(
        "/api/auth/refresh", headers={"Cookie": cookie, "X-CSRF-Token": "x"}
    )
    assert response.status_code == 401
    assert response.json()["message"] == "invalid token"
    assert "www-authenticate" in response.headers


async def test_tenant_rate_limit(harness_factory: Any) -> None:
    """SMCP-4: per-tenant token bucket with X-RateLimit-* headers and 429 rate_limited."""
    async with harness_factory(tenant_rate_limit_per_minute=2) as h:
        token = (await h.register("busy@example.com"))["token"]
        h.client.cookies.clear()
        headers = {"Authorization": f"Bearer {token}"}
        first = await h.client.post("/api/auth/refresh", headers=headers)
        assert first.status_code == 200
        assert first.headers["x-ratelimit-limit"] == "2"
        assert first.headers["x-ratelimit-remaining"] == "1"
        assert int(first.headers["x-ratelimit-reset"]) > 1_700_000_000
        assert (await h.client.post("/api/auth/refresh", headers=headers)).status_code == 200
        limited = await h.client.post("/api/auth/refresh", headers=headers)
        assert limited.status_code == 429
        assert limited.json()["error"] == "rate_limited"
        assert int(limited.headers["retry-after"]) >= 1
        assert limited.headers["x-ratelimit-remaining"] == "0"
        # another tenant is not affected
        other = (await h.register("calm@example.com"))["token"]
        h.client.cookies.clear()
        calm = await h.client.post(
            "/api/auth/refresh", headers={"Authorization": f"Bearer {other}"}
        )
        assert calm.status_code == 200
