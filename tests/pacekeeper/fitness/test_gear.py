"""Gear (issue 33): bikes and shoes with the distance and time of the activities that used
them (summed here by hand from the activities as stored), the default a new activity of a
sport takes, retiring, a wear alert at a set distance; bad input a 400 naming the field;
another person's gear and activities "not found" on every path, and left as they were."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_sport_thresholds import at, person, put, tcx


async def _gear(h: Harness, auth: dict[str, str], body: dict[str, Any]) -> dict[str, Any]:
    r = await h.client.post("/api/gear", headers=auth, json=body)
    assert r.status_code == 201, r.text
    made: dict[str, Any] = r.json()
    return made


async def test_a_bike_and_shoes_add_up_their_activities(harness: Harness) -> None:
    h = harness
    auth, owner = await person(h, "gear@example.com")
    today = h.clock().date()
    bike = await _gear(h, auth, {"name": "Road bike", "kind": "bike", "default_for": "ride",
                                 "alert_km": 60})
    shoes = await _gear(h, auth, {"name": "Trainers", "kind": "shoes", "default_for": "run"})
    # Two rides of an hour at 10 m/s and a run of 40 min at 3 m/s, imported after: each
    # takes its sport's default.
    rides = [await put(h, owner, tcx("Biking", at(today - timedelta(days=d), 8),
                                     np.full(3600, 200.0), speed=np.full(3600, 10.0)))
             for d in (3, 2)]
    run = await put(h, owner, tcx("Running", at(today - timedelta(days=1), 8),
                                  hr=np.full(2400, 140.0), speed=np.full(2400, 3.0)))
    stored = {i: (await h.client.get(f"/api/activities/{i}", headers=auth)).json()
              for i in (*rides, run)}
    assert [stored[i]["gear_id"] for i in rides] == [bike["id"]] * 2
    assert stored[run]["gear_id"] == shoes["id"]
    listed = {g["name"]: g for g in (await h.client.get("/api/gear", headers=auth)).json()["gear"]}
    ride_km = sum(stored[i]["distance_m"] for i in rides) / 1000
    assert listed["Road bike"]["activities"] == 2
    assert listed["Road bike"]["distance_km"] == round(ride_km, 1)
    assert listed["Road bike"]["moving_time_s"] == round(sum(
        stored[i]["moving_time_s"] for i in rides))
    assert listed["Road bike"]["due"] is True  # 72 km past its 60 km alert
    assert listed["Trainers"]["distance_km"] == round(stored[run]["distance_m"] / 1000, 1)
    assert listed["Trainers"]["due"] is False and listed["Trainers"]["alert_km"] is None

    # A ride moved to the shoes by hand, then to none: the totals follow.
    r = await h.client.patch(f"/api/activities/{rides[0]}", headers=auth,
                             json={"gear_id": None})
    assert r.status_code == 200 and r.json()["gear_id"] is None
    bike_now = (await h.client.get(f"/api/gear/{bike['id']}", headers=auth)).json()
    assert bike_now["activities"] == 1 and bike_now["due"] is False  # 36 km < 60 km

    # Retired: no longer the rides' default, and listed last.
    r = await h.client.patch(f"/api/gear/{bike['id']}", headers=auth, json={"retired": True})
    assert r.status_code == 200 and r.json()["default_for"] is None
    later = await put(h, owner, tcx("Biking", at(today, 6), np.full(600, 180.0),
                                    speed=np.full(600, 9.0)))
    assert (await h.client.get(f"/api/activities/{later}", headers=auth)).json()["gear_id"] is None
    names = [g["name"] for g in (await h.client.get("/api/gear", headers=auth)).json()["gear"]]
    assert names == ["Trainers", "Road bike"]

    # A second default for runs takes the role from the first (one per sport).
    await _gear(h, auth, {"name": "Racers", "kind": "shoes", "default_for": "run"})
    by_name = {g["name"]: g for g in (await h.client.get("/api/gear", headers=auth)).json()["gear"]}
    assert by_name["Racers"]["default_for"] == "run" and by_name["Trainers"]["default_for"] is None

    # Deleted: the activities stay, without it.
    assert (await h.client.delete(f"/api/gear/{shoes['id']}", headers=auth)).status_code == 204
    r = await h.client.get(f"/api/activities/{run}", headers=auth)
    assert r.status_code == 200 and r.json()["gear_id"] is None


async def test_bad_gear_input_is_a_clear_400_and_stores_nothing(harness: Harness) -> None:
    h = harness
    auth, _ = await person(h, "gear-bad@example.com")
    for body, said in (({}, "name is required"), ({"name": " "}, "name must be"),
                       ({"name": "x", "kind": "car"}, "kind must be one of"),
                       ({"name": "x", "default_for": "flying"}, "default_for must be"),
                       ({"name": "x", "alert_km": -5}, "alert_km must be"),
                       ({"name": "x", "alert_km": True}, "alert_km must be"),
                       ({"name": "x", "colour": "red"}, "unknown field 'colour'")):
        r = await h.client.post("/api/gear", headers=auth, json=body)
        assert r.status_code == 400 and said in r.json()["message"], (body, r.text)
    assert (await h.client.get("/api/gear", headers=auth)).json()["gear"] == []
    # Made retired: allowed, and then the default of nothing (schemathesis found a 500).
    made = await _gear(h, auth, {"name": "Old shoes", "kind": "shoes", "default_for": "run",
                                 "retired": True})
    assert made["retired"] is True and made["default_for"] is None


async def test_another_persons_gear_is_not_found_on_every_path(harness: Harness) -> None:
    h = harness
    auth, owner = await person(h, "gear-a@example.com")
    other, other_owner = await person(h, "gear-b@example.com")
    bike = await _gear(h, auth, {"name": "Mine", "kind": "bike"})
    today = h.clock().date()
    mine = await put(h, owner, tcx("Biking", at(today, 8), np.full(600, 180.0)))
    theirs = await put(h, other_owner, tcx("Biking", at(today, 9), np.full(600, 180.0)))
    for method, body in (("GET", None), ("PATCH", {"name": "Stolen"}), ("DELETE", None)):
        r = await h.client.request(method, f"/api/gear/{bike['id']}", headers=other, json=body)
        assert r.status_code == 404, (method, r.text)
    # Their activity cannot take my gear, and my activity cannot take theirs.
    r = await h.client.patch(f"/api/activities/{theirs}", headers=other,
                             json={"gear_id": bike["id"]})
    assert r.status_code == 404 and "no such gear" in r.json()["message"]
    r = await h.client.patch(f"/api/activities/{mine}", headers=other,
                             json={"gear_id": None})
    assert r.status_code == 404
    assert (await h.client.get("/api/gear", headers=other)).json()["gear"] == []
    still = (await h.client.get(f"/api/gear/{bike['id']}", headers=auth)).json()
    assert still["name"] == "Mine" and still["activities"] == 0
