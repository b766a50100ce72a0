"""Single use across processes (AS-5, AS-8): two `pacekeeper serve` processes, one PostgreSQL.

Each round gets a fresh code (or refresh token), then fires 32 concurrent token
requests split over the two processes; exactly one may succeed, 20 rounds in a row.
Per-IP limits are per process and in memory, so the requests come "through a proxy":
`PACEKEEPER_TRUSTED_PROXIES=127.0.0.1` and a distinct `X-Forwarded-For` per request.
"""

from __future__ import annotations

import asyncio
import base64
import html
import re
import secrets
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from pacekeeper.oauth2.rfc7636 import s256
from tests._services import free_port
from tests.e2e._service_process import new_database, serve, service_env

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PASSWORD = "e2e-Passw0rd!"
REDIRECT = "http://127.0.0.1:5999/callback"
ROUNDS = 20
CONCURRENCY = 32
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)">')


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
    database = new_database(postgres_url, "oauth_")
    key = base64.b64encode(secrets.token_bytes(32)).decode()
    extra = {"PACEKEEPER_DATABASE_URL": database, "PACEKEEPER_TRUSTED_PROXIES": "127.0.0.1"}
    port_a, port_b = free_port(), free_port()
    # One after the other: the first applies the migrations.
    with serve(service_env(tmp_path / "a", port_a, key, **extra), [PASSWORD]) as a, \
            serve(service_env(tmp_path / "b", port_b, key, **extra), [PASSWORD]) as b:
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
