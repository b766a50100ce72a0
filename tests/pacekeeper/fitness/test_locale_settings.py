"""Units and locale (issue 33): the person's ``time_zone`` (an IANA name, checked against
the zone database) and ``first_day_of_week`` (monday or sunday) are settings like the
others (PATCH /api/athlete), and the weekly load follows them: worked by hand on a Sunday,
where a Monday week and a Sunday week differ, and near midnight, where the zone decides
the date."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_sport_thresholds import person, put, tcx


@pytest.mark.parametrize(("body", "words"), [
    ({"time_zone": "Mars/Olympus_Mons"}, "is not an IANA time zone name"),
    ({"time_zone": "../../etc/passwd"}, "is not an IANA time zone name"),
    ({"time_zone": 3}, "must be an IANA time zone name"),
    ({"time_zone": ""}, "must be an IANA time zone name"),
    ({"first_day_of_week": "friday"}, "first_day_of_week must be one of monday, sunday"),
])
async def test_bad_locale_settings_are_400s(harness: Harness, body: dict[str, Any],
                                            words: str) -> None:
    h = harness
    auth, _ = await person(h, "bad-locale@example.com")
    response = await h.client.patch("/api/athlete", headers=auth, json=body)
    assert response.status_code == 400, response.text
    assert words in response.json()["message"]


async def test_locale_settings_are_stored_and_read_back(harness: Harness) -> None:
    h = harness
    auth, _ = await person(h, "locale@example.com")
    response = await h.client.patch("/api/athlete", headers=auth, json={
        "units": "imperial", "time_zone": "America/New_York", "first_day_of_week": "sunday"})
    assert response.status_code == 200, response.text
    settings = (await h.client.get("/api/athlete", headers=auth)).json()["settings"]
    assert settings["time_zone"] == "America/New_York"
    assert settings["first_day_of_week"] == "sunday" and settings["units"] == "imperial"


async def test_weekly_load_weeks_start_on_the_persons_first_day(harness: Harness) -> None:
    """The clock on a Sunday, 10:00 UTC, zone UTC; a run on Saturday and one on Sunday.
    Monday weeks: this week (from the Monday six days ago) holds both. Sunday weeks: this
    week starts today and holds Sunday's run only; Saturday's is last week's."""
    h = harness
    _, owner = await person(h, "weeks@example.com")
    now = h.clock()
    sunday = (now + timedelta(days=(6 - now.weekday()) % 7 or 7)).date()
    h.clock.value = datetime.combine(sunday, datetime.min.time(), UTC) + timedelta(hours=10)
    fitness = h.services.fitness
    await fitness.update_athlete(owner, {"lthr_bpm": 165, "max_hr_bpm": 190,
                                         "resting_hr_bpm": 50, "time_zone": "UTC"},
                                 sunday - timedelta(days=30))
    loads: dict[Any, float] = {}
    for day, hr in ((sunday - timedelta(days=1), 150.0), (sunday, 130.0)):
        start = datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=8)
        ident = await put(h, owner, tcx("Running", start, hr=np.full(1800, hr)))
        found = await fitness.get(owner, uuid.UUID(ident))
        loads[day] = found.metrics["load"]
    saturday_load, sunday_load = loads[sunday - timedelta(days=1)], loads[sunday]
    assert saturday_load > 0 and sunday_load > 0

    monday_weeks = await fitness.analysis.weekly_load(owner, 2)
    assert [w["week"] for w in monday_weeks["weeks"]] == [
        (sunday - timedelta(days=13)).isoformat(), (sunday - timedelta(days=6)).isoformat()]
    assert monday_weeks["weeks"][-1]["load"] == pytest.approx(
        saturday_load + sunday_load, abs=0.1)

    await fitness.update_athlete(owner, {"first_day_of_week": "sunday"},
                                 sunday - timedelta(days=30))
    sunday_weeks = await fitness.analysis.weekly_load(owner, 2)
    assert [w["week"] for w in sunday_weeks["weeks"]] == [
        (sunday - timedelta(days=7)).isoformat(), sunday.isoformat()]
    assert sunday_weeks["weeks"][-1]["load"] == pytest.approx(sunday_load, abs=0.1)
    assert sunday_weeks["weeks"][0]["load"] == pytest.approx(saturday_load, abs=0.1)


async def test_today_is_the_date_in_the_persons_zone(harness: Harness) -> None:
    """Sunday 23:30 UTC is Monday in Auckland (UTC+13 in December, +12 in June) and
    still Sunday in Los Angeles."""
    h = harness
    _, owner = await person(h, "zone@example.com")
    now = h.clock()
    sunday = (now + timedelta(days=(6 - now.weekday()) % 7 or 7)).date()
    h.clock.value = (datetime.combine(sunday, datetime.min.time(), UTC)
                     + timedelta(hours=23, minutes=30))
    analysis = h.services.fitness.analysis
    fitness = h.services.fitness
    assert (await fitness.athlete(owner))["as_of"] == sunday.isoformat()  # UTC's, unset
    await fitness.update_athlete(owner, {"time_zone": "Pacific/Auckland"})
    assert await analysis.today(owner) == sunday + timedelta(days=1)
    # The athlete answer's day (Home's "as of") is the same date.
    assert (await fitness.athlete(owner))["as_of"] == (sunday + timedelta(days=1)).isoformat()
    await fitness.update_athlete(owner, {"time_zone": "America/Los_Angeles"})
    assert await analysis.today(owner) == sunday
    assert (await fitness.athlete(owner))["as_of"] == sunday.isoformat()


async def test_a_value_set_now_holds_on_both_the_persons_today_and_utcs(harness: Harness
                                                                        ) -> None:
    """Monday 05:00 UTC is Sunday 21:00 in Los Angeles: a zone set then is in the answer
    (valid from Sunday, the person's today, not Monday's UTC date after it). Sunday
    23:30 UTC is Monday in Auckland: an FTP set then is valid from Sunday, UTC's date,
    which an activity of that Auckland morning is read on."""
    h = harness
    _, owner = await person(h, "valid-from@example.com")
    fitness = h.services.fitness
    now = h.clock()
    monday = (now + timedelta(days=(7 - now.weekday()) % 7 or 7)).date()
    h.clock.value = datetime.combine(monday, datetime.min.time(), UTC) + timedelta(hours=5)
    body = await fitness.update_athlete(owner, {"time_zone": "America/Los_Angeles"})
    sunday = monday - timedelta(days=1)
    assert body["as_of"] == sunday.isoformat()
    assert body["settings"]["time_zone"] == "America/Los_Angeles"
    assert body["history"]["time_zone"][-1]["valid_from"] == sunday.isoformat()

    h.clock.value = datetime.combine(monday, datetime.min.time(), UTC) + timedelta(
        days=6, hours=23, minutes=30)  # the next Sunday, 23:30 UTC
    next_sunday = monday + timedelta(days=6)
    await fitness.update_athlete(owner, {"time_zone": "Pacific/Auckland"})
    body = await fitness.update_athlete(owner, {"ftp_watts": 250})
    assert body["as_of"] == (next_sunday + timedelta(days=1)).isoformat()
    assert body["settings"]["ftp_watts"] == 250
    assert body["history"]["ftp_watts"][-1]["valid_from"] == next_sunday.isoformat()
