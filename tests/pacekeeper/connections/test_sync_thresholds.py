"""Issue 27 item 10 (FIG-8): a sync imports the provider's athlete thresholds (Strava's ``ftp``,
``weight``; the sandbox's ``max_heartrate``) as the person's settings with the provider as
their source, so a person who connects and syncs has an FTP and loads without setting
anything; a person's own setting always wins and is never overwritten.

Before: no setting after a sync, so no ride had a TSS until the person set an FTP."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

from pacekeeper.fitness._records import Owner, SettingValue
from pacekeeper.fitness._settings import provider_settings
from pacekeeper.providers.sandbox import _generator as gen
from tests.pacekeeper.connections.conftest import ConnHarness

DAYS = 21


async def _connected(h: ConnHarness, email: str, provider: str = "strava"
                     ) -> tuple[Owner, dict[str, str]]:
    user_id, headers = await h.user(email)
    assert (await h.connect(provider, user_id, headers)).status_code == 200
    user = await h.services.users.get(uuid.UUID(user_id))
    assert user is not None
    return Owner(user.id, user.tenant_id), headers


async def _sync(h: ConnHarness, owner: Owner, provider: str = "strava") -> Any:
    syncs = h.services.syncs
    assert syncs is not None
    report = await syncs.sync(owner, provider)
    assert report.status == "done", report.message
    return report


async def test_a_sync_imports_ftp_and_rides_get_their_load(
        conn_factory: Callable[..., Any]) -> None:
    sandbox = gen.athlete(7)
    async with conn_factory(worker="off", sync_history_days=DAYS) as h:
        owner, headers = await _connected(h, "thresholds-import@example.com")
        report = await _sync(h, owner)
        assert report.thresholds == {"ftp_watts": sandbox.ftp, "max_hr_bpm": sandbox.max_hr,
                                     "weight_kg": sandbox.weight_kg}
        athlete = (await h.client.get("/api/athlete", headers=headers)).json()
        assert athlete["settings"]["ftp_watts"] == sandbox.ftp
        assert athlete["by_sport"]["ride"]["ftp_watts"] == sandbox.ftp
        (ftp,) = athlete["history"]["ftp_watts"]
        assert ftp["source"] == "provider" and ftp["provider"] == "strava"
        # From the start of the synced history: every synced ride has its FTP's load.
        assert ftp["valid_from"] == datetime.fromisoformat(report.history_from).date(
        ).isoformat()
        listed = (await h.client.get("/api/activities", headers=headers,
                                     params={"limit": 100})).json()["activities"]
        rides = [a for a in listed if a["sport"] == "ride" and a.get("normalized_power")]
        assert rides and all(a["tss"] is not None and a["load"] is not None for a in rides)
        # A second sync with the same profile adds nothing to the history.
        again = await _sync(h, owner)
        assert again.thresholds == {}
        history = (await h.client.get("/api/athlete", headers=headers)).json()["history"]
        assert len(history["ftp_watts"]) == 1
        # The person's own FTP from before the synced history is their FTP today: it
        # replaces the provider's (the README tour sets one after connecting).
        saved = await h.client.patch("/api/athlete", headers=headers, json={
            "ftp_watts": 250, "valid_from": "2010-01-01"})
        assert saved.status_code == 200, saved.text
        athlete = (await h.client.get("/api/athlete", headers=headers)).json()
        assert athlete["settings"]["ftp_watts"] == 250
        assert athlete["history"]["ftp_watts"] == [{"valid_from": "2010-01-01", "value": 250}]


async def test_a_persons_own_setting_is_never_overwritten(
        conn_factory: Callable[..., Any]) -> None:
    sandbox = gen.athlete(7)
    async with conn_factory(worker="off", sync_history_days=DAYS) as h:
        owner, headers = await _connected(h, "thresholds-own@example.com")
        saved = await h.client.patch("/api/athlete", headers=headers, json={
            "ftp_watts": 321, "valid_from": "2000-01-01"})
        assert saved.status_code == 200, saved.text
        report = await _sync(h, owner)
        assert "ftp_watts" not in report.thresholds
        assert report.thresholds["weight_kg"] == sandbox.weight_kg  # not set: imported
        athlete = (await h.client.get("/api/athlete", headers=headers)).json()
        assert athlete["settings"]["ftp_watts"] == 321
        assert athlete["history"]["ftp_watts"] == [{"valid_from": "2000-01-01",
                                                    "value": 321}]
        # The person's later change of an imported setting is theirs, and stays.
        await h.client.patch("/api/athlete", headers=headers, json={"weight_kg": 70.0})
        await _sync(h, owner)
        settings = (await h.client.get("/api/athlete", headers=headers)).json()["settings"]
        assert settings["weight_kg"] == 70.0


async def test_fitbit_gives_the_profile_weight(conn_factory: Callable[..., Any]) -> None:
    """Fitbit's profile has a weight (kg: no Accept-Language is sent) and no threshold."""
    async with conn_factory(worker="off", sync_history_days=7) as h:
        owner, headers = await _connected(h, "thresholds-fitbit@example.com", "fitbit")
        report = await _sync(h, owner, "fitbit")
        assert report.thresholds == {"weight_kg": gen.athlete(7).weight_kg}
        history = (await h.client.get("/api/athlete", headers=headers)).json()["history"]
        assert history["weight_kg"][0]["provider"] == "fitbit"


def test_which_provider_values_are_stored() -> None:
    """The rule by itself: a setting the person ever set is theirs; a provider's value
    is stored when it is valid and not the one it gave last (True: the setting's first)."""
    day = date(2026, 1, 1)
    mine = SettingValue("ftp_watts", day, 250)
    theirs = SettingValue("weight_kg", day, 70.0, "strava")
    offered = {"ftp_watts": 280, "weight_kg": 70.0, "max_hr_bpm": 190}
    assert provider_settings([mine, theirs], offered) == {"max_hr_bpm": (190, True)}
    assert provider_settings([theirs], {"weight_kg": 71.5}) == {"weight_kg": (71.5, False)}
    assert provider_settings([], {"ftp_watts": 0, "weight_kg": None}) == {}  # Strava's "no FTP"
    cleared = SettingValue("ftp_watts", day, None)  # the person cleared it: still theirs
    assert provider_settings([cleared], {"ftp_watts": 280}) == {}
