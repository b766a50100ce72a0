"""Garmin push/ping webhooks: known users only, replays ignored, secret checked."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from pacekeeper.connections import ConnectionService
from tests.pacekeeper.connections.conftest import ConnHarness

DAY = "2026-11-02"


async def _garmin_user(h: ConnHarness, email: str) -> tuple[str, str]:
    user_id, headers = await h.user(email)
    assert (await h.connect("garmin", user_id, headers)).status_code == 200
    service: ConnectionService | None = h.services.connections
    assert service is not None
    tokens = await service.keeper.tokens(uuid.UUID(user_id), "garmin")
    return user_id, tokens.access_token


async def _push_body(h: ConnHarness, token: str) -> bytes:
    response = await h.client.get(
        "/sandbox/admin/garmin/push",
        params={"athlete_id": "7", "date": DAY, "user_access_token": token},
        headers=await h.sandbox_admin(),
    )
    assert response.status_code == 200, response.text
    return response.content


async def test_push_is_accepted_once_and_replay_ignored(conn: ConnHarness) -> None:
    """PROV-9 (Garmin push): a delivery for a connected user is accepted; the same
    delivery again (Garmin retries) is counted as a replay and not processed."""
    _, token = await _garmin_user(conn, "push@example.com")
    body = await _push_body(conn, token)
    entries = sum(len(v) for v in json.loads(body).values())
    first = await conn.client.post("/api/webhooks/garmin/push", content=body)
    assert first.status_code == 200, first.text
    assert first.json() == {"accepted": entries, "replays": 0, "unknown_users": 0}
    again = await conn.client.post("/api/webhooks/garmin/push", content=body)
    assert again.json() == {"accepted": 0, "replays": entries, "unknown_users": 0}


async def test_unknown_token_and_malformed_bodies(conn: ConnHarness) -> None:
    """A token of no connection is not processed; broken bodies are 400, not 500."""
    await _garmin_user(conn, "known@example.com")
    stranger = await conn.client.post(
        "/api/webhooks/garmin/push", content=await _push_body(conn, "not-a-token")
    )
    assert stranger.json()["accepted"] == 0 and stranger.json()["unknown_users"] >= 1
    for bad in (b"not json", b"[]", b'{"nope": []}'):
        response = await conn.client.post("/api/webhooks/garmin/push", content=bad)
        assert response.status_code == 400, bad
    assert (await conn.client.post("/api/webhooks/garmin/other", content=b"{}")).status_code == 404


async def test_ping_callback_must_stay_on_the_garmin_api(conn: ConnHarness) -> None:
    """A ping whose callbackURL points elsewhere is refused (no SSRF)."""
    _, token = await _garmin_user(conn, "ping@example.com")
    ping: dict[str, Any] = {
        "dailies": [
            {
                "userId": "g7",
                "userAccessToken": token,
                "callbackURL": "http://169.254.169.254/latest",
            }
        ]
    }
    response = await conn.client.post("/api/webhooks/garmin/ping", json=ping)
    assert response.status_code == 400
    assert "outside the Garmin API" in response.json()["message"]


async def test_shared_secret_is_required_when_configured(
    conn_factory: Callable[..., Any],
) -> None:
    """With PACEKEEPER_GARMIN_WEBHOOK_SECRET set, a delivery without it is refused."""
    async with conn_factory(garmin_webhook_secret="hook-secret-123") as h:
        _, token = await _garmin_user(h, "secret@example.com")
        body = await _push_body(h, token)
        refused = await h.client.post("/api/webhooks/garmin/push", content=body)
        assert refused.status_code == 400 and "secret" in refused.json()["message"]
        wrong = await h.client.post("/api/webhooks/garmin/push?secret=nope", content=body)
        assert wrong.status_code == 400
        ok = await h.client.post("/api/webhooks/garmin/push?secret=hook-secret-123", content=body)
        assert ok.status_code == 200 and ok.json()["accepted"] > 0


async def test_webhook_body_limit_is_its_own(conn: ConnHarness) -> None:
    """Deliveries above the app's 1 MiB are accepted up to 8 MiB; beyond that 413."""
    _, token = await _garmin_user(conn, "big@example.com")
    entry = {"userId": "g7", "userAccessToken": token, "summaryId": "big", "pad": "x" * 2_000_000}
    big = await conn.client.post("/api/webhooks/garmin/push", json={"dailies": [entry]})
    assert big.status_code == 200, big.text
    entry["pad"] = "x" * 9_000_000
    huge = await conn.client.post("/api/webhooks/garmin/push", json={"dailies": [entry]})
    assert huge.status_code == 413
    other = await conn.client.post("/api/auth/register", content=b"x" * 2_000_000,
                                   headers={"content-type": "application/json"})  # fmt: skip
    assert other.status_code == 413  # the rest of the app keeps 1 MiB
