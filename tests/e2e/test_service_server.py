"""The real service process: `pacekeeper serve` on a loopback port, SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests._services import free_port
from tests.e2e._service_process import EXE, new_database, serve, service_env, stop, wait_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PASSWORD = "e2e-Passw0rd!"
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture(params=["sqlite", "postgres"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    env = service_env(tmp_path / "data", free_port())
    if request.param == "postgres":
        env["PACEKEEPER_DATABASE_URL"] = new_database(request.getfixturevalue("postgres_url"))
    # ERR-3: nothing secret in the server log.
    with serve(env, secrets_to_hide=[PASSWORD]) as url:
        yield url


def test_register_login_refresh_logout_and_mcp(server: str) -> None:
    """ACC-1, ACC-5, CSRF-1, JWT-9, CSRF-2, SMCP-2, JWT-6 over real sockets."""
    with httpx.Client(base_url=server, timeout=10.0) as http:
        registered = http.post("/api/auth/register",
                               json={"email": "E2E@example.com", "password": PASSWORD})
        assert registered.status_code == 201, registered.text
        login = http.post("/oauth/token", data={"grant_type": "password",
                                                "username": "e2e@example.com",
                                                "password": PASSWORD})
        assert login.status_code == 200
        body = login.json()
        set_cookies = login.headers.get_list("set-cookie")
        assert any(c.startswith("auth_token=") and "HttpOnly" in c for c in set_cookies)
        cookie = f"auth_token={body['jwt_token']}; csrf_token={body['csrf_token']}"
        no_csrf = http.post("/api/auth/refresh", headers={"Cookie": cookie})
        assert no_csrf.status_code == 403
        refreshed = http.post("/api/auth/refresh",
                              headers={"Cookie": cookie, "X-CSRF-Token": body["csrf_token"]})
        assert refreshed.status_code == 200, refreshed.text
        assert set(refreshed.json()) == {"csrf_token", "expires_at"}
        logout = http.post("/api/auth/logout", headers={"Cookie": cookie})
        assert "auth_token=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0" in (
            logout.headers.get_list("set-cookie"))
        jwks = http.get("/oauth2/jwks")
        assert jwks.headers["cache-control"] == "public, max-age=3600"
        assert jwks.json()["keys"][0]["kty"] == "RSA"
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "e2e", "version": "1"}}}
        opened = http.post("/mcp", headers=ACCEPT, json=init)
        assert opened.status_code == 200
        session = {**ACCEPT, "mcp-session-id": opened.headers["mcp-session-id"],
                   "mcp-protocol-version": "2025-11-25"}
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "whoami", "arguments": {}}}
        anonymous = http.post("/mcp", headers=session, json=call)
        assert anonymous.status_code == 401
        assert anonymous.headers["www-authenticate"] == (
            f'Bearer resource_metadata="{server}/.well-known/oauth-protected-resource"')
        ended = http.post("/mcp", headers={**session,
                                           "authorization": f"Bearer {body['jwt_token']}"},
                          json=call)
        assert ended.status_code == 401  # logout revoked the JWT it ended (finding 13)
        assert "invalid token" in ended.text
        who = http.post("/mcp", headers={
            **session, "authorization": f"Bearer {registered.json()['token']}"}, json=call)
        assert who.status_code == 200
        assert who.json()["result"]["structuredContent"]["email"] == "e2e@example.com"
        huge = http.post("/api/auth/register", content=b"x" * 2_000_000,
                         headers={"content-type": "application/json"})
        assert huge.status_code == 413


def test_production_without_master_key_refuses_to_start(tmp_path: Path) -> None:
    env = service_env(tmp_path / "data", free_port())
    env["PACEKEEPER_ENV"] = "production"
    del env["SERVICE_MASTER_ENCRYPTION_KEY"]
    del env["PACEKEEPER_JWT_RSA_KEY_BITS"]
    done = subprocess.run([EXE, "serve"], env=env, capture_output=True, timeout=60, check=False)
    assert done.returncode == 2
    assert b"SERVICE_MASTER_ENCRYPTION_KEY is required in production" in done.stderr
    assert not (tmp_path / "data" / "master.key").exists()


def test_wrong_password_and_unknown_email_take_similar_time(tmp_path: Path) -> None:
    """ACC-6: with the default Argon2id cost, both failures take about the same time."""
    port = free_port()
    env = service_env(tmp_path / "data", port)
    del env["PACEKEEPER_ARGON2_MEMORY_KIB"], env["PACEKEEPER_ARGON2_TIME_COST"]
    # 16 failed sign-ins from one address: above the guessing limits (finding 1).
    env["PACEKEEPER_LOGIN_LIMIT_PER_ACCOUNT"] = env["PACEKEEPER_LOGIN_LIMIT_PER_ADDRESS"] = "100"
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc)
        with httpx.Client(base_url=url, timeout=30.0) as http:
            assert http.post("/api/auth/register", json={
                "email": "timing@example.com", "password": PASSWORD}).status_code == 201

            def attempt(username: str) -> float:
                start = time.perf_counter()
                response = http.post("/oauth/token", data={
                    "grant_type": "password", "username": username,
                    "password": "not-the-password"})
                assert response.status_code == 401
                return time.perf_counter() - start

            known, unknown = [], []
            for _ in range(8):  # interleaved, so load changes hit both alike
                known.append(attempt("timing@example.com"))
                unknown.append(attempt("nobody@example.com"))
        known_median = sorted(known)[len(known) // 2]
        unknown_median = sorted(unknown)[len(unknown) // 2]
        assert 0.5 < known_median / unknown_median < 2.0, (known, unknown)
    finally:
        stop(proc)
