"""Single use across processes (AS-5, AS-8): two `pacekeeper serve` processes, one PostgreSQL.

Each round gets a fresh code (or refresh token), then fires 32 concurrent token
requests split over the two processes; exactly one may succeed, 20 rounds in a row.
Per-IP limits are per process and in memory, so the requests come "through a proxy":
`PACEKEEPER_TRUSTED_PROXIES=127.0.0.1` and a distinct `X-Forwarded-For` per request.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import html
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import asyncpg  # type: ignore[import-untyped]
import httpx
import pytest
from sqlalchemy.engine import make_url

from pacekeeper.oauth2.rfc7636 import s256
from tests._services import free_port

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

EXE = str(Path(sys.executable).parent / "pacekeeper")
PASSWORD = "e2e-Passw0rd!"
REDIRECT = "http://127.0.0.1:5999/callback"
ROUNDS = 20
CONCURRENCY = 32
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


def service_env(data_dir: Path, port: int, master_key: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PACEKEEPER_") and k != "SERVICE_MASTER_ENCRYPTION_KEY"}
    env.update({
        "PACEKEEPER_DATA_DIR": str(data_dir),
        "PACEKEEPER_PORT": str(port),
        "PACEKEEPER_BASE_URL": f"http://127.0.0.1:{port}",
        "PACEKEEPER_REGISTRATION": "open",
        "PACEKEEPER_JWT_RSA_KEY_BITS": "2048",
        "PACEKEEPER_ARGON2_MEMORY_KIB": "1024",
        "PACEKEEPER_ARGON2_TIME_COST": "1",
        "SERVICE_MASTER_ENCRYPTION_KEY": master_key,
        **extra,
    })
    return env


@contextlib.contextmanager
def serve(env: dict[str, str]) -> Iterator[str]:
    """`pacekeeper serve` until healthy; on exit its log must be free of secrets (ERR-3)."""
    url = env["PACEKEEPER_BASE_URL"]
    proc = subprocess.Popen([EXE, "serve"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 40
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}")
            if time.monotonic() > deadline:
                raise RuntimeError("server did not become healthy")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/health", timeout=1.0).status_code == 200:
                    break
            time.sleep(0.1)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            output = proc.communicate(timeout=15)[0].decode(errors="replace")
        except subprocess.TimeoutExpired:
            proc.kill()
            output = proc.communicate()[0].decode(errors="replace")
        assert PASSWORD not in output
        assert "Traceback" not in output, output[-3000:]


def _database(postgres_url: str) -> str:
    admin = make_url(postgres_url)
    name = "oauth_" + secrets.token_hex(6)

    async def create() -> None:
        conn = await asyncpg.connect(host=admin.host, port=admin.port, user=admin.username,
                                     database=admin.database)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    return admin.set(database=name).render_as_string(hide_password=False)


def _ip() -> str:
    return f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250)}"


class Browserless:
    """Just enough of a browser for the consent step: a session cookie and the forms."""

    def __init__(self, base: str, email: str) -> None:
        self.http = httpx.AsyncClient(base_url=base, timeout=20.0)
        self.email = email
        self.jwt = ""

    async def login(self) -> None:
        await self.http.post("/api/auth/register", json={"email": self.email,
                                                          "password": PASSWORD})
        login = await self.http.post("/oauth/token", data={
            "grant_type": "password", "username": self.email, "password": PASSWORD},
            headers={"x-forwarded-for": _ip()})
        assert login.status_code == 200, login.text
        self.jwt = login.json()["jwt_token"]

    async def code(self, client_id: str) -> tuple[str, str]:
        verifier = secrets.token_urlsafe(48)
        params = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
                  "code_challenge": s256(verifier), "code_challenge_method": "S256",
                  "state": "s"}
        page = await self.http.get("/oauth2/authorize", params=params, headers={
            "cookie": f"auth_token={self.jwt}", "x-forwarded-for": _ip()})
        assert page.status_code == 200, page.text
        fields = [(html.unescape(k), html.unescape(v)) for k, v in _HIDDEN.findall(page.text)]
        csrf = dict(fields)["csrf_token"]
        done = await self.http.post(
            "/oauth2/authorize", data=dict([*fields, ("decision", "allow")]),
            headers={"cookie": f"auth_token={self.jwt}; csrf_token={csrf}",
                     "x-forwarded-for": _ip()})
        assert done.status_code == 303, done.text
        query = parse_qs(urlsplit(done.headers["location"]).query)
        return query["code"][0], verifier


async def _race(urls: list[str], form: dict[str, str], auth: tuple[str, str]) -> list[int]:
    async with httpx.AsyncClient(timeout=30.0, auth=auth,
                                 limits=httpx.Limits(max_connections=64)) as http:
        responses = await asyncio.gather(*(
            http.post(f"{urls[i % 2]}/oauth2/token", data=form, headers={"x-forwarded-for": _ip()})
            for i in range(CONCURRENCY)
        ))
    for r in responses:
        assert r.status_code in (200, 400), r.text
        if r.status_code == 400:
            assert r.json()["error"] == "invalid_grant"
    return [r.status_code for r in responses]


@pytest.fixture
def two_processes(postgres_url: str, tmp_path: Path) -> Iterator[list[str]]:
    database = _database(postgres_url)
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    extra = {"PACEKEEPER_DATABASE_URL": database, "PACEKEEPER_TRUSTED_PROXIES": "127.0.0.1"}
    port_a, port_b = free_port(), free_port()
    # One after the other: the first applies the migrations.
    with serve(service_env(tmp_path / "a", port_a, key, **extra)) as a, \
            serve(service_env(tmp_path / "b", port_b, key, **extra)) as b:
        yield [a, b]


async def _register(base: str) -> tuple[str, str]:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.post("/oauth2/register", json={
            "redirect_uris": [REDIRECT], "client_name": "Racer",
            "grant_types": ["authorization_code", "refresh_token"]})
        assert response.status_code == 201, response.text
        body = response.json()
        return body["client_id"], body["client_secret"]


async def test_code_race_across_two_processes(two_processes: list[str]) -> None:
    """AS-5: 32 concurrent exchanges over two processes: exactly one wins, 20 rounds."""
    browser = Browserless(two_processes[0], "race-code@example.com")
    await browser.login()
    client_id, secret = await _register(two_processes[1])
    for round_no in range(ROUNDS):
        code, verifier = await browser.code(client_id)
        form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                "redirect_uri": REDIRECT}
        statuses = await _race(two_processes, form, (client_id, secret))
        assert statuses.count(200) == 1, (round_no, statuses)
    await browser.http.aclose()


async def test_refresh_race_across_two_processes(two_processes: list[str]) -> None:
    """AS-8: 32 concurrent refreshes of one token over two processes: one wins, 20 rounds."""
    browser = Browserless(two_processes[1], "race-rt@example.com")
    await browser.login()
    client_id, secret = await _register(two_processes[0])
    async with httpx.AsyncClient(timeout=20.0, auth=(client_id, secret)) as http:
        for round_no in range(ROUNDS):
            code, verifier = await browser.code(client_id)
            first = await http.post(f"{two_processes[0]}/oauth2/token", data={
                "grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                "redirect_uri": REDIRECT}, headers={"x-forwarded-for": _ip()})
            assert first.status_code == 200, first.text
            form = {"grant_type": "refresh_token", "refresh_token": first.json()["refresh_token"]}
            statuses = await _race(two_processes, form, (client_id, secret))
            assert statuses.count(200) == 1, (round_no, statuses)
    await browser.http.aclose()
