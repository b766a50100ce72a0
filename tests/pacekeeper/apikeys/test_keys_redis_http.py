"""The same rules over HTTP when the service runs on Redis (PACEKEEPER_REDIS_URL)."""

from __future__ import annotations

from typing import Any

from tests.pacekeeper.apikeys._helpers import bearer, create_key, user_token


async def test_rules_hold_on_redis(harness_factory: Any, redis_url: str) -> None:
    """KEY-4, KEY-5, KEY-7, ACC-8 with the one-round-trip Redis path."""
    # Three trial keys of one user: above the default cap of 2 (tests/security covers it).
    async with harness_factory(redis_url=redis_url, apikey_max_trial_keys_per_user=5) as h:
        assert h.services.redis is not None
        token = await user_token(h, "r@example.com")
        key = await create_key(h, token)
        ok = await h.client.get("/a2a/tools", headers={"x-API-key": key["api_key"]})
        assert ok.status_code == 200 and ok.headers["X-Quota-Remaining"] == "999"
        assert (await h.client.get("/a2a/tools", headers={"X-API-KEY": key["api_key"]})
                ).headers["X-Quota-Used"] == "2"
        h.clock.advance(days=14)
        expired = await h.client.get("/a2a/tools", headers={"X-API-Key": key["api_key"]})
        assert expired.status_code == 401 and "expired" in expired.json()["message"]
        h.clock.advance(days=-14)
        token = (await h.login("r@example.com")).json()["jwt_token"]
        h.client.cookies.clear()
        second = await create_key(h, token)
        headers = {"X-API-Key": second["api_key"]}
        assert (await h.client.get("/a2a/tools", headers=headers)).status_code == 200
        deleted = await h.client.delete(f"/api/keys/{second['id']}", headers=bearer(token))
        assert deleted.status_code == 204
        gone = await h.client.get("/a2a/tools", headers=headers)
        assert gone.status_code == 401 and gone.json()["message"].endswith("deleted")
        third = await create_key(h, token)
        assert (await h.client.get("/a2a/tools", headers={"X-API-Key": third["api_key"]})
                ).status_code == 200
        assert await h.services.accounts.disable("r@example.com")
        refused = await h.client.get("/a2a/tools", headers={"X-API-Key": third["api_key"]})
        assert refused.status_code == 401
        assert refused.json()["message"].startswith("invalid token")
