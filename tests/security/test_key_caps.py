"""Issue 20, #11: quotas do not multiply with keys.

The attack: quotas are per key (KEY-6), so a free user created 40 trial keys, each with
its own 1,000 requests a month. Now a person holds at most N live keys (configurable,
`PACEKEEPER_APIKEY_MAX_LIVE_KEYS_PER_USER`, default 10) and creates at most M trial keys
in 30 days, deleted ones included (`PACEKEEPER_APIKEY_MAX_TRIAL_KEYS_PER_USER`, default 2).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx


def _create(service: Any, token: str, tier: str = "trial", name: str = "agent") -> httpx.Response:
    with service.client() as http:
        return http.post("/api/keys", json={"name": name, "tier": tier},  # type: ignore[no-any-return]
                         headers={"authorization": f"Bearer {token}"})  # fmt: skip


def test_a_free_user_cannot_mint_trial_keys(live: Any) -> None:
    """KEY-1, KEY-6: the third trial key is a 409 with a clear message; deleting a key
    and creating another does not mint a fresh quota either; the refused key never
    existed (the list holds two)."""
    with live() as service:
        _, token = service.register("minter@example.com")
        first, second = _create(service, token), _create(service, token)
        assert first.status_code == 201 and second.status_code == 201
        third = _create(service, token)
        assert third.status_code == 409, third.text
        assert third.json()["error"] == "conflict"
        assert "at most 2 trial keys" in third.json()["message"]
        with service.client() as http:
            auth = {"authorization": f"Bearer {token}"}
            gone = http.delete(f"/api/keys/{first.json()['id']}", headers=auth)
            assert gone.status_code in (200, 204), gone.text
            assert _create(service, token).status_code == 409  # churn does not help
            keys = http.get("/api/keys", headers=auth).json()["keys"]
        assert [k["id"] for k in keys] == [second.json()["id"]]


def test_concurrent_creations_cannot_race_past_the_cap(live: Any) -> None:
    """Twenty simultaneous creations by one user: exactly two trial keys exist after."""
    with live() as service:
        _, token = service.register("racer@example.com")
        with ThreadPoolExecutor(20) as pool:
            codes = sorted(pool.map(lambda _: _create(service, token).status_code, range(20)))
        assert codes == [201, 201] + [409] * 18


def test_live_key_cap_covers_every_tier(live: Any) -> None:
    """The total of live keys per person is capped too (configured to 3 here); an admin
    may create paid tiers for a user, but not past the cap."""
    with live(apikey_max_live_keys_per_user=3) as service:
        user_id, _ = service.register("busy@example.com")
        admin = service.admin_token()
        auth = {"authorization": f"Bearer {admin}"}
        with service.client() as http:
            codes = [http.post("/api/keys", headers=auth, json={
                "name": f"k{i}", "tier": "starter", "user_id": user_id}).status_code
                for i in range(4)]  # fmt: skip
        assert codes == [201, 201, 201, 409]
