"""Finding 13: logout ends the token it was sent, at once, on SQLite and PostgreSQL.

Before: a JWT kept working after logout until `exp`, and could even be renewed through
/api/auth/refresh. Spec section 7 / decisions: a revoked token is "invalid token" (401).
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.security._live_auth import Live, cookie_header, live, postgres_database

_MCP = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest) -> str | None:
    if request.param == "sqlite":
        return None  # the live service's own SQLite file (cached states, file signal)
    # PostgreSQL without Redis: the uncached path (every request reads the database).
    return postgres_database(request.getfixturevalue("postgres_url"))


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _invalid(response: httpx.Response) -> None:
    assert response.status_code == 401, response.text
    assert response.json()["error"] == "invalid_token"
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


def _login(svc: Live) -> httpx.Response:
    answer = svc.login("runner@example.com")
    assert answer.status_code == 200, answer.text
    return answer


def test_logout_revokes_the_bearer_token_and_only_that_one(
    tmp_path: Path, database: str | None
) -> None:
    """JWT-5, JWT-9, SMCP-3 (finding 13): after logout the token is "invalid token" on the
    API, on /mcp and on /api/auth/refresh; another session of the same user works on."""
    with live(tmp_path, database) as svc:
        assert svc.register("runner@example.com").status_code == 201
        ended = _login(svc).json()["jwt_token"]
        other = _login(svc).json()["jwt_token"]
        # Both work (and the "not revoked" answer is now cached where caching is on).
        assert svc.client.get("/api/keys", headers=_bearer(ended)).status_code == 200
        assert svc.client.get("/api/keys", headers=_bearer(other)).status_code == 200
        assert svc.client.post("/api/auth/logout", headers=_bearer(ended)).status_code == 200
        _invalid(svc.client.get("/api/keys", headers=_bearer(ended)))
        _invalid(svc.client.post("/api/auth/refresh", headers=_bearer(ended)))
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "whoami", "arguments": {}}}
        mcp = svc.client.post("/mcp", json=call, headers={**_MCP, **_bearer(ended)})
        assert mcp.status_code == 401
        assert "invalid token" in mcp.text
        assert svc.client.get("/api/keys", headers=_bearer(other)).status_code == 200
        renewed = svc.client.post("/api/auth/refresh", headers=_bearer(other))
        assert renewed.status_code == 200, renewed.text


def test_cookie_logout_revokes_the_cookie_token(tmp_path: Path, database: str | None) -> None:
    """CSRF-2 (finding 13): a browser logout ends its JWT too, not only the cookies: a
    copy of the cookie's token is refused afterwards."""
    with live(tmp_path, database) as svc:
        assert svc.register("runner@example.com").status_code == 201
        login = _login(svc)
        token = login.json()["jwt_token"]
        assert svc.client.get("/api/keys", headers=_bearer(token)).status_code == 200
        out = svc.client.post("/api/auth/logout", headers={"Cookie": cookie_header(login)})
        assert out.status_code == 200
        _invalid(svc.client.get("/api/keys", headers=_bearer(token)))
        _invalid(svc.client.post("/api/auth/refresh", headers={
            "Cookie": cookie_header(login), "X-CSRF-Token": login.json()["csrf_token"]}))
