"""Single use under concurrency, in one process (AS-5, AS-8).

32 concurrent presentations of one code, and of one refresh token, each from its own
client address (so the per-IP limit does not interfere): exactly one succeeds, 20
times over, on SQLite and PostgreSQL. tests/e2e/test_oauth_races.py does the same
across two server processes sharing PostgreSQL.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlencode

import httpx
import pytest

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.oauth2._flow import (
    REDIRECT,
    Registered,
    authorize_params,
    basic,
    exchange,
    hidden_fields,
    pkce,
    post_form,
    redirect_query,
    register_client,
)

ROUNDS = 20
CONCURRENCY = 32


def _client(h: Harness, round_no: int, index: int) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=h.app, client=(f"10.{round_no}.{index}.1", 4000))
    return httpx.AsyncClient(transport=transport, base_url="https://pk.test")


async def _fresh_code(h: Harness, reg: Registered) -> tuple[str, str]:
    verifier, challenge = pkce()
    page = await h.client.get("/oauth2/authorize", params=authorize_params(reg.client_id, challenge))
    fields = hidden_fields(page.text)
    assert ("action", "consent") in fields, page.text
    query = redirect_query(await post_form(h.client, fields + [("decision", "allow")]))
    return query["code"], verifier


async def _race(h: Harness, round_no: int, form: dict[str, str], reg: Registered) -> list[int]:
    headers = {"content-type": "application/x-www-form-urlencoded",
               **basic(reg.client_id, reg.client_secret or "")}
    clients = [_client(h, round_no, i) for i in range(CONCURRENCY)]
    try:
        responses = await asyncio.gather(*(
            c.post("/oauth2/token", content=urlencode(form), headers=headers) for c in clients
        ))
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))
    for r in responses:
        assert r.status_code in (200, 400), r.text
        if r.status_code == 400:
            assert r.json()["error"] == "invalid_grant"
    return [r.status_code for r in responses]


@pytest.mark.slow
async def test_one_code_32_concurrent_exchanges(harness: Harness) -> None:
    """AS-5: of 32 concurrent exchanges of one code exactly one succeeds (20 rounds)."""
    await harness.register("race-code@example.com")
    assert (await harness.login("race-code@example.com")).status_code == 200
    reg = await register_client(harness)
    for round_no in range(ROUNDS):
        code, verifier = await _fresh_code(harness, reg)
        form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
                "redirect_uri": REDIRECT}
        statuses = await _race(harness, round_no, form, reg)
        assert statuses.count(200) == 1, (round_no, statuses)


@pytest.mark.slow
async def test_one_refresh_token_32_concurrent_presentations(harness: Harness) -> None:
    """AS-8: of 32 concurrent refreshes with one token exactly one succeeds (20 rounds)."""
    await harness.register("race-rt@example.com")
    assert (await harness.login("race-rt@example.com")).status_code == 200
    reg = await register_client(harness)
    for round_no in range(ROUNDS):
        code, verifier = await _fresh_code(harness, reg)
        first = await exchange(harness, reg, code, verifier)
        assert first.status_code == 200, first.text
        form = {"grant_type": "refresh_token", "refresh_token": first.json()["refresh_token"]}
        statuses = await _race(harness, round_no, form, reg)
        assert statuses.count(200) == 1, (round_no, statuses)
