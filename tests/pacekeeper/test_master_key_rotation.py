"""Rotating SERVICE_MASTER_ENCRYPTION_KEY: signing keys sealed under the old key still open."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag

from tests.pacekeeper.conftest import MASTER_KEY


async def test_signing_keys_open_with_a_retired_master_key_and_are_resealed(
        harness_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """PROV-5 (key versions): a new master key with the old one retired keeps tokens valid."""
    async with harness_factory() as h:
        body = await h.register("rotate@example.com")
        token = body["token"]
    new_key = secrets.token_hex(32)

    # The new key alone cannot open what the old one sealed: start-up refuses.
    with pytest.raises(InvalidTag):
        async with harness_factory(master_encryption_key=new_key):
            pass

    # With the old key listed as retired, the service starts, old tokens still validate,
    # and the signing keys are sealed again under the new key.
    monkeypatch.setenv("PACEKEEPER_MASTER_KEY_VERSION", "2")
    monkeypatch.setenv("PACEKEEPER_RETIRED_MASTER_KEYS", f"1:{MASTER_KEY}")
    async with harness_factory(master_encryption_key=new_key) as h:
        assert h.services.keys.resealed >= 1
        me = await h.client.post("/api/auth/refresh", headers={"authorization": f"Bearer {token}"})
        assert me.status_code == 200, me.text

    # Now the new key alone is enough: the retired one can go.
    monkeypatch.delenv("PACEKEEPER_RETIRED_MASTER_KEYS")
    async with harness_factory(master_encryption_key=new_key) as h:
        assert h.services.keys.resealed == 0
        me = await h.client.post("/api/auth/refresh", headers={"authorization": f"Bearer {token}"})
        assert me.status_code == 200, me.text
