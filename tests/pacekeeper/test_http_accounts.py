"""Registration and password login over HTTP, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import jwt
import jwt.utils
import pytest

from tests.pacekeeper.conftest import PASSWORD, Harness


def _cookies(response: Any) -> dict[str, str]:
    return {h.split("=", 1)[0]: h for h in response.headers.get_list("set-cookie")}


async def _user_count(h: Harness) -> int:
    return await h.services.users.count()


async def test_register_returns_user_token_and_expiry(harness: Harness) -> None:
    """ACC-1: user_id (UUID), email, token (JWT), expires_at (ISO 8601 UTC)."""
    body = await harness.register("Runner@Example.com", display_name="Runner")
    assert set(body) == {"user_id", "email", "token", "expires_at"}
    uuid.UUID(body["user_id"])
    assert body["email"] == "runner@example.com"
    assert body["expires_at"].endswith("Z")
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert abs((expires - harness.clock()).total_seconds() - 24 * 3600) < 2
    claims = jwt.decode(body["token"], options={"verify_signature": False})
    assert claims["sub"] == body["user_id"]


async def test_register_takes_null_optional_members_as_absent(harness: Harness) -> None:
    """ACC-1: display_name and tenant_id may be null, as the OpenAPI schema says; wrong
    types are still 400 naming the member."""
    answer = await harness.client.post("/api/auth/register", json={
        "email": "nulls@example.com", "password": PASSWORD,
        "display_name": None, "tenant_id": None})
    assert answer.status_code == 201, answer.text
    schema = (await harness.client.get("/openapi.json")).json()
    members = schema["components"]["schemas"]["RegisterRequest"]["properties"]
    assert "null" in members["tenant_id"]["type"]
    assert "null" in members["display_name"]["type"]
    wrong = await harness.client.post("/api/auth/register", json={
        "email": "wrong@example.com", "password": PASSWORD, "tenant_id": 5})
    assert wrong.status_code == 400
    assert "tenant_id" in wrong.json()["message"]


async def test_admin_mode_requires_admin_token(harness_factory: Any) -> None:
    """ACC-2: registration=admin needs an admin bearer token; a user token is 403."""
    async with harness_factory(
        registration="admin", admin_email="root@example.com", admin_password=PASSWORD
    ) as h:
        anonymous = await h.client.post(
            "/api/auth/register", json={"email": "a@example.com", "password": PASSWORD}
        )
        assert anonymous.status_code == 401
        assert anonymous.json() == {
            "error": "authentication_required", "message": "authentication required"
        }
        assert anonymous.headers["www-authenticate"].startswith("Bearer ")
        login = await h.login("root@example.com")
        admin_token = login.json()["jwt_token"]
        h.client.cookies.clear()
        created = await h.client.post(
            "/api/auth/register",
            json={"email": "a@example.com", "password": PASSWORD},
            headers={"Authorization": f"Bearer {admin_token}"},
        )
        assert created.status_code == 201
        user_token = created.json()["token"]
        as_user = await h.client.post(
            "/api/auth/register",
            json={"email": "b@example.com", "password": PASSWORD},
            headers={"Authorization": f"Bearer {user_token}"},
        )
        assert as_user.status_code == 403
        assert as_user.json()["error"] == "forbidden"
        assert await _user_count(h) == 2


async def test_admin_cookie_session_registers_with_csrf(harness_factory: Any) -> None:
    """ACC-2, CSRF-3: an admin registering from a browser session needs the CSRF header."""
    async with harness_factory(
        registration="admin", admin_email="root@example.com", admin_password=PASSWORD
    ) as h:
        login = (await h.login("root@example.com")).json()
        body = {"email": "fromweb@example.com", "password": PASSWORD}
        refused = await h.client.post("/api/auth/register", json=body)
        assert refused.status_code == 403
        assert refused.json()["error"] == "csrf_failed"
        assert await _user_count(h) == 1
        created = await h.client.post(
            "/api/auth/register", json=body, headers={"X-CSRF-Token": login["csrf_token"]}
        )
        assert created.status_code == 201


async def test_open_mode_accepts_anonymous_and_admin(harness_factory: Any) -> None:
    """ACC-2: in open mode anyone registers and an admin token is still accepted."""
    async with harness_factory(
        registration="open", admin_email="root@example.com", admin_password=PASSWORD
    ) as h:
        await h.register("anon@example.com")
        token = (await h.login("root@example.com")).json()["jwt_token"]
        h.client.cookies.clear()
        response = await h.client.post(
            "/api/auth/register",
            json={"email": "byadmin@example.com", "password": PASSWORD},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 201


async def test_admin_may_place_user_in_a_tenant(harness_factory: Any) -> None:
    """ACC-2: an admin names the tenant; a non-admin may not."""
    async with harness_factory(admin_email="root@example.com", admin_password=PASSWORD) as h:
        admin = await h.services.users.get_by_email("root@example.com")
        assert admin is not None
        token = (await h.login("root@example.com")).json()["jwt_token"]
        h.client.cookies.clear()
        response = await h.client.post(
            "/api/auth/register",
            json={"email": "member@example.com", "password": PASSWORD,
                  "tenant_id": str(admin.tenant_id)},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 201
        member = await h.services.users.get_by_email("member@example.com")
        assert member is not None
        assert member.tenant_id == admin.tenant_id
        denied = await h.client.post(
            "/api/auth/register",
            json={"email": "x@example.com", "password": PASSWORD,
                  "tenant_id": str(admin.tenant_id)},
        )
        assert denied.status_code == 403
        assert await h.services.users.get_by_email("x@example.com") is None


async def test_duplicate_email_case_insensitive_is_409(harness: Harness) -> None:
    """ACC-3: the same email in another case is 409 and nothing is stored twice."""
    await harness.register("dup@example.com")
    response = await harness.client.post(
        "/api/auth/register", json={"email": "  DUP@Example.COM ", "password": PASSWORD}
    )
    assert response.status_code == 409
    assert response.json()["error"] == "conflict"
    assert await _user_count(harness) == 1


BAD_BODIES: list[tuple[str, Any, str]] = [
    ("missing email", {"password": PASSWORD}, "email is required"),
    ("missing password", {"email": "a@example.com"}, "password is required"),
    ("short password", {"email": "a@example.com", "password": "short"}, "at least 8"),
    ("weak password", {"email": "a@example.com", "password": "aaaaaaaaaa"}, "too weak"),
    ("long password", {"email": "a@example.com", "password": "ab1" * 400}, "at most 1024"),
    ("bad email", {"email": "not-an-email", "password": PASSWORD}, "email"),
    ("long email", {"email": "a" * 250 + "@example.com", "password": PASSWORD}, "email"),
    ("number email", {"email": 12, "password": PASSWORD}, "email must be a string"),
    ("list password", {"email": "a@example.com", "password": ["x"]}, "password must be"),
    ("long name", {"email": "a@example.com", "password": PASSWORD, "display_name": "n" * 201},
     "display_name"),
    ("control name", {"email": "a@example.com", "password": PASSWORD, "display_name": "a\x00b"},
     "display_name"),
    ("array body", [1, 2], "JSON object"),
    ("bad tenant", {"email": "a@example.com", "password": PASSWORD, "tenant_id": 5},
     "tenant_id"),
]


@pytest.mark.parametrize(("case", "body", "fragment"), BAD_BODIES, ids=[b[0] for b in BAD_BODIES])
async def test_bad_registration_input_is_400(
    harness: Harness, case: str, body: Any, fragment: str
) -> None:
    """ACC-4: bad input is 400 {error, message}; nothing is stored."""
    response = await harness.client.post("/api/auth/register", json=body)
    assert response.status_code == 400, response.text
    data = response.json()
    assert data["error"] == "validation_error"
    assert fragment in data["message"]
    assert await _user_count(harness) == 0


@pytest.mark.parametrize(
    ("content", "content_type"),
    [(b"{not json", "application/json"), (b"email=a", "application/x-www-form-urlencoded"),
     (b"\xff\xfe", "application/json"), (b"", "application/json")],
)
async def test_non_json_registration_is_400(
    harness: Harness, content: bytes, content_type: str
) -> None:
    """ACC-4: broken JSON or the wrong content type is 400, never 422 or 500."""
    response = await harness.client.post(
        "/api/auth/register", content=content, headers={"Content-Type": content_type}
    )
    assert response.status_code == 400
    assert response.json()["error"] == "validation_error"
    assert await _user_count(harness) == 0


async def test_huge_body_is_413(harness: Harness) -> None:
    """ERR-4: a body over PACEKEEPER_MAX_BODY_BYTES is 413 and nothing is stored."""
    big = {"email": "big@example.com", "password": PASSWORD, "display_name": "x" * 2_000_000}
    response = await harness.client.post("/api/auth/register", json=big)
    assert response.status_code == 413
    assert response.json() == {"error": "payload_too_large", "message": "request body too large"}
    assert await _user_count(harness) == 0


async def test_password_grant_returns_login_shape_and_cookies(harness: Harness) -> None:
    """ACC-5, CSRF-1, CSRF-8: login body, cookies with the exact attributes."""
    registered = await harness.register("login@example.com")
    response = await harness.login("LOGIN@example.com")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"jwt_token", "csrf_token", "user", "expires_at"}
    assert body["user"] == {"id": registered["user_id"], "email": "login@example.com"}
    assert len(jwt.utils.base64url_decode(body["csrf_token"].encode())) == 32
    assert response.headers["cache-control"] == "no-store"
    cookies = _cookies(response)
    assert cookies["auth_token"] == (
        f"auth_token={body['jwt_token']}; Path=/; HttpOnly; Secure; SameSite=Strict; "
        "Max-Age=86400"
    )
    assert cookies["csrf_token"] == (
        f"csrf_token={body['csrf_token']}; Path=/; Secure; SameSite=Strict; Max-Age=1800"
    )
    user = await harness.services.users.get(uuid.UUID(registered["user_id"]))
    assert user is not None
    assert user.last_login_at is not None


async def test_wrong_password_and_unknown_email_look_the_same(harness: Harness) -> None:
    """ACC-6: same 401 body for a wrong password and an unknown email (ERR-2 header)."""
    await harness.register("known@example.com")
    wrong = await harness.login("known@example.com", "wrong-password-1")
    unknown = await harness.login("nobody@example.com", "wrong-password-1")
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.json()["error"] == "invalid_grant"
    assert "www-authenticate" in wrong.headers
    assert "www-authenticate" in unknown.headers
    assert "set-cookie" not in wrong.headers


async def test_disabled_user_cannot_log_in(harness: Harness) -> None:
    """ACC-8: a disabled user gets the same 401 as a wrong password."""
    await harness.register("gone@example.com")
    assert await harness.services.accounts.disable("gone@example.com")
    response = await harness.login("gone@example.com")
    assert response.status_code == 401


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"grant_type": "client_credentials", "username": "a", "password": "b"},
         "unsupported_grant_type"),
        ({"grant_type": "password", "username": "a@example.com"}, "invalid_request"),
        ({"grant_type": "password", "password": "x"}, "invalid_request"),
        ({}, "invalid_request"),
        ({"username": "a@example.com", "password": "pppppppp"}, "invalid_request"),
    ],
)
async def test_password_grant_bad_input_is_400(
    harness: Harness, data: dict[str, str], error: str
) -> None:
    """ACC-5: RFC 6749 errors for a wrong grant or missing fields."""
    response = await harness.client.post("/oauth/token", data=data)
    assert response.status_code == 400
    assert response.json()["error"] == error
    assert "set-cookie" not in response.headers


async def test_password_grant_rejects_json_and_repeated_fields(harness: Harness) -> None:
    """ACC-5: the grant is form-encoded; a parameter given twice is invalid_request."""
    as_json = await harness.client.post(
        "/oauth/token", json={"grant_type": "password", "username": "a", "password": "b"}
    )
    assert as_json.status_code == 400
    repeated = await harness.client.post(
        "/oauth/token",
        content=b"grant_type=password&username=a%40b.c&username=x%40y.z&password=pppppppp",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert repeated.status_code == 400
    assert repeated.json()["error"] == "invalid_request"


async def test_first_admin_from_environment_once(harness_factory: Any) -> None:
    """ACC-9: the env admin is created on an empty database only, and only once."""
    async with harness_factory(admin_email="Boss@Example.com", admin_password=PASSWORD) as h:
        admin = await h.services.users.get_by_email("boss@example.com")
        assert admin is not None
        assert admin.role.value == "admin"
    async with harness_factory(admin_email="other@example.com", admin_password=PASSWORD) as h:
        assert await h.services.users.get_by_email("other@example.com") is None
        assert await h.services.users.count() == 1


async def test_unknown_path_and_method_use_error_body(harness: Harness) -> None:
    """ERR-1: routing errors use {error, message} too."""
    missing = await harness.client.get("/nope")
    assert missing.status_code == 404
    assert missing.json()["error"] == "not_found"
    wrong = await harness.client.get("/api/auth/register")
    assert wrong.status_code == 405
    assert wrong.json()["error"] == "method_not_allowed"


async def test_health_reports_version(harness: Harness) -> None:
    from pacekeeper import __version__

    response = await harness.client.get("/health")
    assert response.json() == {"status": "ok", "version": __version__}


async def test_expires_at_is_utc(harness: Harness) -> None:
    body = await harness.register("tz@example.com")
    parsed = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert parsed.tzinfo == UTC
