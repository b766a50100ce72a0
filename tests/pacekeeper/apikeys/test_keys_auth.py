"""Authenticating with a key: header case, rejections, expiry, limits (KEY-3..7, ACC-8)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from pacekeeper.apikeys import BURST_PER_MINUTE, QUOTAS, ApiKeyUsageRow, Tier
from pacekeeper.db import session_factory
from tests.pacekeeper.apikeys._helpers import bearer, create_key, user_token
from tests.pacekeeper.conftest import Harness


async def _key(h: Harness, email: str = "k@example.com", tier: str = "trial",
               plan: str | None = None) -> tuple[str, dict[str, Any]]:
    token = await user_token(h, email, plan=plan)
    return token, await create_key(h, token, tier)


@pytest.mark.parametrize("header", ["X-API-Key", "x-api-key", "X-API-KEY", "x-Api-kEy"])
async def test_header_name_in_any_case(harness: Harness, header: str) -> None:
    """KEY-4: X-API-Key is accepted in any header-name case."""
    _, key = await _key(harness)
    response = await harness.client.get("/a2a/tools", headers={header: key["api_key"]})
    assert response.status_code == 200, response.text


async def test_rejections_are_401_with_their_own_messages(harness: Harness) -> None:
    """ERR-2, KEY-3: missing, malformed, unknown and wrong-secret keys: 401 + WWW-Authenticate."""
    _, key = await _key(harness)
    text = key["api_key"]
    flipped = text[:-1] + ("A" if text[-1] != "A" else "B")
    cases = {
        None: "authentication required",
        "": "authentication required",
        "nonsense": "invalid token: unknown API key",
        "pk_live_0123456789abcdef_" + "A" * 43: "invalid token: unknown API key",
        flipped: "invalid token: unknown API key",
    }
    for value, message in cases.items():
        headers = {} if value is None else {"X-API-Key": value}
        response = await harness.client.get("/a2a/tools", headers=headers)
        assert response.status_code == 401, value
        assert response.json()["message"] == message
        assert response.headers["WWW-Authenticate"].startswith("ApiKey ")
    assert (await harness.client.get("/a2a/tools", headers={"X-API-Key": text})).status_code == 200


async def test_deletion_takes_effect_at_once(harness: Harness) -> None:
    """KEY-7: the request right after DELETE is refused, with its own message."""
    token, key = await _key(harness)
    headers = {"X-API-Key": key["api_key"]}
    assert (await harness.client.get("/a2a/tools", headers=headers)).status_code == 200
    deleted = await harness.client.delete(f"/api/keys/{key['id']}", headers=bearer(token))
    assert deleted.status_code == 204
    refused = await harness.client.get("/a2a/tools", headers=headers)
    assert refused.status_code == 401
    assert refused.json()["message"] == "invalid token: API key deleted"
    assert (await harness.client.get("/api/keys", headers=bearer(token))).json()["keys"] == []
    again = await harness.client.delete(f"/api/keys/{key['id']}", headers=bearer(token))
    assert again.status_code == 404


async def test_trial_key_expires_exactly_14_days_after_creation(harness: Harness) -> None:
    """KEY-5: valid one second before 14 days, refused at 14 days to the second."""
    _, key = await _key(harness)
    assert key["expires_at"] is not None
    headers = {"X-API-Key": key["api_key"]}
    harness.clock.advance(days=14, seconds=-1)
    assert (await harness.client.get("/a2a/tools", headers=headers)).status_code == 200
    harness.clock.advance(seconds=1)
    refused = await harness.client.get("/a2a/tools", headers=headers)
    assert refused.status_code == 401
    assert "expired" in refused.json()["message"]


async def test_paid_tiers_do_not_expire(harness: Harness) -> None:
    _, key = await _key(harness, tier="starter", plan="starter")
    assert key["expires_at"] is None
    harness.clock.advance(days=400)
    response = await harness.client.get("/a2a/tools", headers={"X-API-Key": key["api_key"]})
    assert response.status_code == 200


async def test_disabling_the_owner_fails_keys_at_once(harness: Harness) -> None:
    """ACC-8: a disabled user's keys fail with "invalid token" on the next request."""
    _, key = await _key(harness, email="gone@example.com")
    headers = {"X-API-Key": key["api_key"]}
    assert (await harness.client.get("/a2a/tools", headers=headers)).status_code == 200
    assert await harness.services.accounts.disable("gone@example.com")
    refused = await harness.client.get("/a2a/tools", headers=headers)
    assert refused.status_code == 401
    assert refused.json()["message"].startswith("invalid token")


async def test_rate_limit_headers_on_every_key_response(harness: Harness) -> None:
    """SMCP-4 / KEY-6: X-RateLimit-* (tier burst) and X-Quota-* on key-authenticated answers."""
    _, key = await _key(harness)
    response = await harness.client.get("/a2a/tools", headers={"X-API-Key": key["api_key"]})
    assert response.headers["X-RateLimit-Limit"] == str(BURST_PER_MINUTE[Tier.TRIAL])
    assert response.headers["X-RateLimit-Remaining"] == str(BURST_PER_MINUTE[Tier.TRIAL] - 1)
    assert int(response.headers["X-RateLimit-Reset"]) > 0
    assert response.headers["X-Quota-Limit"] == "1000"
    assert response.headers["X-Quota-Remaining"] == "999"


async def test_burst_limit_per_tier_is_429_and_not_counted(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """API keys are rate limited per tier (token bucket): 429 rate_limited with Retry-After."""
    monkeypatch.setitem(BURST_PER_MINUTE, Tier.TRIAL, 3)
    token, key = await _key(harness)
    headers = {"X-API-Key": key["api_key"]}
    codes = [(await harness.client.get("/a2a/tools", headers=headers)).status_code
             for _ in range(3)]
    assert codes == [200, 200, 200]
    refused = await harness.client.get("/a2a/tools", headers=headers)
    assert refused.status_code == 429
    assert refused.json()["error"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    listed = (await harness.client.get("/api/keys", headers=bearer(token))).json()["keys"]
    assert listed[0]["usage"]["used"] == 3  # the refused request did not spend quota


async def test_quota_exhaustion_is_429_with_retry_after(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """KEY-6: over quota is 429 quota_exceeded with Retry-After until the window frees."""
    monkeypatch.setitem(QUOTAS, Tier.TRIAL, 2)
    _, key = await _key(harness)
    headers = {"X-API-Key": key["api_key"]}
    for _ in range(2):
        assert (await harness.client.get("/a2a/tools", headers=headers)).status_code == 200
    refused = await harness.client.get("/a2a/tools", headers=headers)
    assert refused.status_code == 429
    assert refused.json()["error"] == "quota_exceeded"
    retry = int(refused.headers["Retry-After"])
    assert 29 * 86400 < retry <= 30 * 86400
    assert refused.headers["X-Quota-Remaining"] == "0"
    assert "X-RateLimit-Limit" in refused.headers


async def test_usage_is_not_written_per_request_and_survives_restart(
    harness_factory: Any,
) -> None:
    """KEY-6: counts live in memory, are flushed in a batch, and are there after a restart."""
    async with harness_factory() as h:
        token, key = await _key(h)
        headers = {"X-API-Key": key["api_key"]}
        for _ in range(5):
            assert (await h.client.get("/a2a/tools", headers=headers)).status_code == 200
        async with session_factory(h.services.engine)() as session:
            rows = await session.scalar(select(func.count()).select_from(ApiKeyUsageRow))
        assert rows == 0  # nothing written on the hot path
        h.clock.advance(minutes=1)
    # The lifespan's shutdown flushed the counts; a new process starts from them.
    async with harness_factory() as h2:
        listed = (await h2.client.get("/api/keys", headers=bearer(token))).json()["keys"]
        assert listed[0]["usage"]["used"] == 5
        assert listed[0]["last_used_at"] is not None
        assert (await h2.client.get("/a2a/tools", headers=headers)).headers[
            "X-Quota-Remaining"] == "994"


async def test_flush_failure_keeps_the_counts(harness: Harness) -> None:
    """Bad luck at flush time loses nothing: the deltas wait for the next flush."""
    _, key = await _key(harness)
    headers = {"X-API-Key": key["api_key"]}
    await harness.client.get("/a2a/tools", headers=headers)
    usage = harness.services.api_keys.usage
    pending = usage.pending  # type: ignore[attr-defined]
    real = pending.store.add_usage

    async def broken(*args: Any) -> None:
        raise ConnectionError("database away")

    pending.store.add_usage = broken
    with pytest.raises(ConnectionError):
        await usage.flush()
    pending.store.add_usage = real
    await usage.flush()
    rows = await harness.services.api_keys.store.usage_since([key["id"]], 0)
    assert sum(rows[key["id"]].values()) == 1
