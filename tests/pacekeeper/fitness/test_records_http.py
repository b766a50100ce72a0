"""``GET /api/records`` (issue 33 follow-up: the Records page in one request), on SQLite
and PostgreSQL.

The answer's parts are checked against figures built here by hand (the stored best
efforts and curves) and against the twins the page used to call once per season, range by
range; another person's faster runs and stronger rides never appear in it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _curve, _person, _store, _today


async def test_records_are_the_callers_own_per_season(harness: Harness) -> None:
    h = harness
    auth, owner = await _person(h, "records-http@example.com")
    other_auth, other = await _person(h, "records-http-other@example.com")
    today = _today(h)
    year = today.year
    this_run = datetime.combine(today - timedelta(days=1), datetime.min.time(), UTC)
    last_run = datetime(year - 1, 6, 15, 8, tzinfo=UTC)
    ride = datetime(year - 3, 3, 18, 8, tzinfo=UTC)
    mine = await _store(h, owner, [
        {"start": this_run, "sport": "run", "distance": 5000.0,
         "metrics": {"best_efforts": {"5km": 1300.0}}},
        {"start": last_run, "sport": "run", "distance": 10000.0,
         "metrics": {"best_efforts": {"5km": 1200.0, "10km": 2500.0}}},
        {"start": ride, "metrics": _curve({5: 800.0, 60: 400.0, 300: 300.0})}])
    # The other person: faster and stronger in the same seasons (would win every cell).
    theirs = await _store(h, other, [
        {"start": this_run, "sport": "run", "distance": 5000.0,
         "metrics": {"best_efforts": {"5km": 1000.0}}},
        {"start": ride, "metrics": _curve({5: 1600.0, 60: 800.0, 300: 600.0})}])

    response = await h.client.get("/api/records", headers=auth)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["to"] == today.isoformat()
    assert date.fromisoformat(body["from"]) == today - timedelta(days=4017)
    assert {e["distance"]: (e["time_s"], e["activity_id"]) for e in body["all_time"]["efforts"]
            } == {"5km": (1200, str(mine[1])), "10km": (2500, str(mine[1]))}
    seasons = {s["season"]: s for s in body["seasons"]}
    assert list(seasons) == [year, year - 1, year - 3]  # newest first, empty ones left out
    assert [(e["distance"], e["time_s"]) for e in seasons[year]["best_efforts"]["efforts"]
            ] == [("5km", 1300)]
    assert seasons[year]["power"]["points"] == []
    watts = {p["duration_s"]: (p["watts"], p["activity_id"])
             for p in seasons[year - 3]["power"]["points"]}
    assert watts[5] == (800, str(mine[2])) and watts[300] == (300, str(mine[2]))
    # The same figures as the twins the page called per range.
    all_time = await h.client.get("/api/best-efforts", headers=auth,
                                  params={"from": body["from"], "to": body["to"]})
    assert body["all_time"] == all_time.json()
    for y, season in seasons.items():
        span = {"from": f"{y}-01-01", "to": min(today, date(y, 12, 31)).isoformat()}
        twin = await h.client.get("/api/best-efforts", headers=auth, params=span)
        assert season["best_efforts"] == twin.json(), y
        curve = await h.client.get("/api/curves/power", headers=auth, params=span)
        assert season["power"] == curve.json(), y
    text = response.text
    assert all(str(t) not in text for t in theirs)
    # The other person sees theirs alone.
    other_body = (await h.client.get("/api/records", headers=other_auth)).json()
    assert [e["time_s"] for e in other_body["all_time"]["efforts"]] == [1000]
    assert all(str(m) not in str(other_body) for m in mine)
    # No credential: 401; the route is in the OpenAPI document.
    assert (await h.client.get("/api/records")).status_code == 401
    document = (await h.client.get("/openapi.json")).json()
    assert "/api/records" in document["paths"]
    assert "seasons" in document["paths"]["/api/records"]["get"]["responses"]["200"][
        "content"]["application/json"]["schema"]["properties"]
