"""Editing an activity (issue 33): PATCH /api/activities/{id} {name?, sport?,
description?, notes?}. A change of sport computes the load again with the new sport's
thresholds (checked against hrTSS worked by hand, never read back through the service);
bad input is a 400 naming the field; another person's activity is a 404 and stays as it
was; the notes reach the owner's own assistant (docs/fitness.md)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from pacekeeper.fitness._edit import MAX_TEXT
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_sport_thresholds import (
    at,
    hr_tss_by_hand,
    mcp,
    patch,
    person,
    put,
    tcx,
)


async def test_editing_a_ride_into_a_run_loads_it_against_running_thresholds(
        harness: Harness) -> None:
    """An hour at 225 W and 140 bpm recorded as a ride: TSS 81 against the 250 W cycling
    FTP. Marked a run by hand, its load is the hrTSS from the run's own LTHR (170 bpm),
    and the name, description and notes come back as given."""
    h = harness
    auth, owner = await person(h, "edit@example.com")
    today = h.clock().date()
    await patch(h, auth, {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190,
                          "resting_hr_bpm": 50, "sex": "M",
                          "valid_from": (today - timedelta(days=60)).isoformat()})
    await patch(h, auth, {"sport": "run", "lthr_bpm": 170,
                          "valid_from": (today - timedelta(days=60)).isoformat()})
    ride_id = await put(h, owner, tcx("Biking", at(today - timedelta(days=2), 8),
                                      np.full(3600, 225.0), np.full(3600, 140.0)))
    before = (await h.client.get(f"/api/activities/{ride_id}", headers=auth)).json()
    assert before["sport"] == "ride" and before["load"] == pytest.approx(81.0, abs=0.05)
    assert before["notes"] is None and before["edited"] == []

    response = await h.client.patch(f"/api/activities/{ride_id}", headers=auth, json={
        "name": "  Treadmill with a power pod ", "sport": "run",
        "description": "5 x 6 min", "notes": "left calf tight"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["name"] == "Treadmill with a power pod" and body["sport"] == "run"
    assert body["description"] == "5 x 6 min" and body["notes"] == "left calf tight"
    assert body["edited"] == ["name", "sport"]
    assert body["load_method"] == "heart_rate"
    assert body["load"] == pytest.approx(hr_tss_by_hand(140, 170, 50, 190), abs=0.05)
    again = (await h.client.get(f"/api/activities/{ride_id}", headers=auth)).json()
    assert again["load"] == body["load"] and again["notes"] == "left calf tight"

    # Clearing the notes; the sport and name stay as edited.
    cleared = await h.client.patch(f"/api/activities/{ride_id}", headers=auth,
                                   json={"notes": ""})
    assert cleared.status_code == 200 and cleared.json()["notes"] is None
    assert cleared.json()["sport"] == "run"

    # The owner's own assistant reads the notes (their assistant, their notes).
    await h.client.patch(f"/api/activities/{ride_id}", headers=auth,
                         json={"notes": "left calf tight"})
    tool = await mcp(h, auth, "get_activity", {"activity_id": ride_id})
    assert tool["structuredContent"]["notes"] == "left calf tight"


@pytest.mark.parametrize(("body", "words"), [
    ({}, "at least one field"),
    ({"gear": "bike"}, "unknown field 'gear'"),
    ({"name": ""}, "name must not be empty"),
    ({"name": "   "}, "name must not be empty"),
    ({"name": 5}, "name must be a string"),
    ({"name": "x" * 301}, "at most 300"),
    ({"sport": "quidditch"}, "sport must be one of"),
    ({"sport": None}, "sport must be one of"),
    ({"notes": "x" * (MAX_TEXT + 1)}, f"at most {MAX_TEXT}"),
    ({"description": "a\x00b"}, "NUL"),
])
async def test_bad_edits_are_400s_that_name_the_field(harness: Harness, body: dict[str, Any],
                                                      words: str) -> None:
    h = harness
    auth, owner = await person(h, "bad-edit@example.com")
    activity_id = await put(h, owner, tcx("Running", at(h.clock().date(), 7),
                                          hr=np.full(600, 140.0)))
    response = await h.client.patch(f"/api/activities/{activity_id}", headers=auth,
                                    json=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == "validation_error"
    assert words in response.json()["message"]
    stored = (await h.client.get(f"/api/activities/{activity_id}", headers=auth)).json()
    assert stored["sport"] == "run" and stored["edited"] == []


async def test_another_persons_activity_is_a_404_and_stays_as_it_was(harness: Harness
                                                                     ) -> None:
    h = harness
    auth, owner = await person(h, "owner-edit@example.com")
    other, _ = await person(h, "other-edit@example.com")
    activity_id = await put(h, owner, tcx("Running", at(h.clock().date(), 7),
                                          hr=np.full(600, 140.0)))
    response = await h.client.patch(f"/api/activities/{activity_id}", headers=other,
                                    json={"name": "mine now", "notes": "x"})
    assert response.status_code == 404 and response.json()["error"] == "not_found"
    stored = (await h.client.get(f"/api/activities/{activity_id}", headers=auth)).json()
    assert stored["name"] != "mine now" and stored["notes"] is None


async def test_the_persons_sport_and_name_survive_a_rederivation(harness: Harness) -> None:
    """A ride edited into a run, then stamped as an older engine's: re-deriving parses
    the file again (which says "Biking") but keeps the person's sport and name, and the
    load is the run's hrTSS (run LTHR 170), not the ride's (165)."""
    h = harness
    auth, owner = await person(h, "rederive-edit@example.com")
    today = h.clock().date()
    since = (today - timedelta(days=60)).isoformat()
    await patch(h, auth, {"lthr_bpm": 165, "max_hr_bpm": 190, "resting_hr_bpm": 50,
                          "sex": "M", "valid_from": since})
    await patch(h, auth, {"sport": "run", "lthr_bpm": 170, "valid_from": since})
    activity_id = await put(h, owner, tcx("Biking", at(today - timedelta(days=1), 8),
                                          hr=np.full(3600, 140.0)))
    edited = await h.client.patch(f"/api/activities/{activity_id}", headers=auth,
                                  json={"sport": "run", "name": "Treadmill"})
    assert edited.status_code == 200, edited.text
    store = h.services.fitness.store
    await store.rederived(owner.user_id, uuid.UUID(activity_id), version=0, now=h.clock(),
                          metrics={"load": 999.0, "load_method": "power"})
    report = await h.services.fitness.rederive(owner)
    assert report.reparsed == 1
    after = (await h.client.get(f"/api/activities/{activity_id}", headers=auth)).json()
    assert after["sport"] == "run" and after["name"] == "Treadmill"
    assert after["load"] == pytest.approx(hr_tss_by_hand(140, 170, 50, 190), abs=0.05)


async def test_the_persons_sport_survives_a_richer_source_merged_later(harness: Harness
                                                                       ) -> None:
    """A ride with heart rate only, edited into a run; then the same hour arrives with
    power too (richer streams: it replaces the summary and streams). The sport stays the
    person's, and the load is the run's hrTSS (no running FTP: power gives no run TSS),
    not the cycling TSS the power would give against the 250 W FTP."""
    h = harness
    auth, owner = await person(h, "merge-edit@example.com")
    today = h.clock().date()
    since = (today - timedelta(days=60)).isoformat()
    await patch(h, auth, {"ftp_watts": 250, "lthr_bpm": 165, "max_hr_bpm": 190,
                          "resting_hr_bpm": 50, "sex": "M", "valid_from": since})
    await patch(h, auth, {"sport": "run", "lthr_bpm": 170, "valid_from": since})
    start = at(today - timedelta(days=1), 8)
    activity_id = await put(h, owner, tcx("Biking", start, hr=np.full(3600, 140.0)))
    edited = await h.client.patch(f"/api/activities/{activity_id}", headers=auth,
                                  json={"sport": "run"})
    assert edited.status_code == 200, edited.text
    richer = tcx("Biking", start, np.full(3600, 225.0), np.full(3600, 140.0))
    outcome = (await h.services.fitness.import_file(owner, richer, "b.tcx",
                                                    bounded=False))[0]
    assert outcome.merged and outcome.activity is not None
    assert str(outcome.activity.id) == activity_id
    after = (await h.client.get(f"/api/activities/{activity_id}", headers=auth)).json()
    assert "power" in after["streams"]  # the richer source's streams were taken
    assert after["sport"] == "run" and after["load_method"] == "heart_rate"
    assert after["load"] == pytest.approx(hr_tss_by_hand(140, 170, 50, 190), abs=0.05)
