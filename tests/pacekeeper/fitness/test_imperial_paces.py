"""Issue 27 item 14, FIG-10: every run pace a person reads follows their ``units`` setting, not only
analyze_activity's: race predictions, best efforts, Daniels training paces, pace zones, the
pace curve and the training week's targets are per km in metric units and per mile in
imperial ones, named so (``pace_s_per_mi``, ``6:26/mi``), the same speed converted. A
swim's pace stays per 100 m in either (as ``pace_or_speed`` has it). Tools and their HTTP
twins answer alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import STD, _mcp, _person, _store, _today
from tests.pacekeeper.fitness.test_answer_units import walk

MILE = 1609.344
# 4:00/km is 240 s/km; a mile at that speed 240 x 1.609344 = 386.24 s = 6:26/mi.
PER_KM, PER_MI = 240, 386


async def _runner(h: Harness, email: str) -> tuple[dict[str, str], Any]:
    """A runner with a 5 km best effort at 4:00/km (20:00) two days ago, a pace curve at
    4:00/km from 1 s to an hour, a pool swim's curve at 2:00/100 m and a threshold pace of
    4:00/km."""
    auth, owner = await _person(h, email)
    await h.client.patch("/api/athlete", headers=auth, json={
        "threshold_pace_s_per_km": PER_KM, "valid_from": "2000-01-01"})
    start = datetime.combine(_today(h) - timedelta(days=2), datetime.min.time(),
                             UTC) + timedelta(hours=7)
    durations = [d for d in STD if d <= 3600]
    await _store(h, owner, [
        {"start": start, "sport": "run", "distance": 5000.0, "elapsed": 1200.0,
         "metrics": {"best_efforts": {"5km": 1200.0}, "curve_durations": durations,
                     "speed_curve": [1000.0 / PER_KM] * len(durations)}},
        {"start": start - timedelta(days=1), "sport": "swim", "distance": 2000.0,
         "elapsed": 2400.0, "metrics": {"curve_durations": durations,
                                        "speed_curve": [100.0 / 120.0] * len(durations)}}])
    return auth, owner


async def _imperial(h: Harness, auth: dict[str, str]) -> None:
    saved = await h.client.patch("/api/athlete", headers=auth, json={
        "units": "imperial", "valid_from": "2000-01-01"})
    assert saved.status_code == 200, saved.text


async def _both(h: Harness, auth: dict[str, str], tool: str, route: str,
                args: dict[str, Any]) -> dict[str, Any]:
    """The tool's answer, checked equal to its HTTP twin's."""
    answer = await _mcp(h, auth, tool, args)
    assert not answer.get("isError"), answer
    body: dict[str, Any] = answer["structuredContent"]
    bad_unit: list[str] = []
    bad_round: list[str] = []
    walk(body, tool, "", "", bad_unit, bad_round)  # every figure named and rounded by unit
    assert not bad_unit and not bad_round, (bad_unit, bad_round)
    twin = await h.client.get(route, headers=auth, params=args)
    assert twin.status_code == 200, twin.text
    assert twin.json() == body, route
    return body


async def test_race_predictions_and_best_efforts_per_mile_in_imperial(harness: Harness
                                                                     ) -> None:
    h = harness
    auth, _ = await _runner(h, "imperial-races@example.com")
    race = {"distance_m": 5000, "time_s": 1200, "target_distance_m": 5000}
    metric = await _both(h, auth, "predict_race_time", "/api/race-prediction", race)
    riegel = next(p for p in metric["predictions"] if p["method"] == "riegel")
    assert riegel["pace_s_per_km"] == PER_KM and "pace_s_per_mi" not in riegel
    efforts = await _both(h, auth, "get_best_efforts", "/api/best-efforts", {})
    five = next(e for e in efforts["efforts"] if e["distance"] == "5km")
    assert five["pace_s_per_km"] == PER_KM and "pace_s_per_mi" not in five

    await _imperial(h, auth)
    imperial = await _both(h, auth, "predict_race_time", "/api/race-prediction", race)
    for km, mi in zip(metric["predictions"], imperial["predictions"], strict=True):
        assert "pace_s_per_km" not in mi
        assert km["time_s"] == mi["time_s"]  # the same prediction, its pace per mile
        assert mi["pace_s_per_mi"] == round(mi["time_s"] / 5000 * MILE)
    riegel = next(p for p in imperial["predictions"] if p["method"] == "riegel")
    assert riegel["pace_s_per_mi"] == PER_MI  # 6:26/mi
    # From the person's own best efforts too (no race given).
    own = await _both(h, auth, "predict_race_time", "/api/race-prediction", {})
    assert own["predictions"] and all("pace_s_per_mi" in p and "pace_s_per_km" not in p
                                      for p in own["predictions"])
    efforts = await _both(h, auth, "get_best_efforts", "/api/best-efforts", {})
    five = next(e for e in efforts["efforts"] if e["distance"] == "5km")
    assert five["pace_s_per_mi"] == PER_MI and "pace_s_per_km" not in five
    assert five["time_s"] == 1200 and five["distance_m"] == 5000  # names and times kept


async def test_training_paces_and_pace_zones_per_mile_in_imperial(harness: Harness) -> None:
    h = harness
    auth, _ = await _runner(h, "imperial-paces@example.com")
    metric = await _both(h, auth, "get_training_paces", "/api/training-paces", {"vdot": 50})
    zones_km = await _both(h, auth, "calculate_zones", "/api/zones", {})
    assert all(t.endswith("/km") for t in metric["paces"].values())
    assert "pace from threshold 4:00/km" in zones_km["summary"]

    await _imperial(h, auth)
    imperial = await _both(h, auth, "get_training_paces", "/api/training-paces",
                           {"vdot": 50})
    assert "paces_s_per_km" not in imperial
    assert imperial["paces_s_per_mi"].keys() == metric["paces_s_per_km"].keys()
    for name, per_km in metric["paces_s_per_km"].items():  # the same pace, a mile's
        assert abs(imperial["paces_s_per_mi"][name] - per_km * MILE / 1000) <= 1.0, name
        assert imperial["paces"][name].endswith("/mi")
    assert imperial["repetition_per_400m_s"] == metric["repetition_per_400m_s"]
    assert "/mi" in imperial["summary"] and "/km" not in imperial["summary"]

    zones_mi = await _both(h, auth, "calculate_zones", "/api/zones", {})
    assert "pace from threshold 6:26/mi" in zones_mi["summary"]
    for km, mi in zip(zones_km["pace"], zones_mi["pace"], strict=True):
        assert mi["unit"] == "s/mi" and "slowest_s_per_km" not in mi
        for edge in ("slowest", "fastest"):
            if km[f"{edge}_s_per_km"] is None:
                assert mi[f"{edge}_s_per_mi"] is None
            else:
                assert abs(mi[f"{edge}_s_per_mi"] - km[f"{edge}_s_per_km"] * MILE / 1000
                           ) <= 1.0


async def test_pace_curve_and_training_week_per_mile_swims_per_100m(harness: Harness
                                                                    ) -> None:
    h = harness
    auth, _ = await _runner(h, "imperial-curve@example.com")
    metric = await _both(h, auth, "get_pace_curve", "/api/curves/pace", {"sport": "run"})
    assert metric["points"] and all(p["pace_s_per_km"] == PER_KM for p in metric["points"])
    week = (await _mcp(h, auth, "suggest_training_week", {"sport": "run"})
            )["structuredContent"]
    assert any("/km" in (s.get("target") or "") for s in week["sessions"]), week

    await _imperial(h, auth)
    imperial = await _both(h, auth, "get_pace_curve", "/api/curves/pace", {"sport": "run"})
    assert [p["duration_s"] for p in imperial["points"]] == [
        p["duration_s"] for p in metric["points"]]
    assert all(p["pace_s_per_mi"] == PER_MI and "pace_s_per_km" not in p
               for p in imperial["points"])
    swim = await _both(h, auth, "get_pace_curve", "/api/curves/pace", {"sport": "swim"})
    assert swim["points"] and all(p["pace_s_per_100m"] == 120 and "pace_s_per_mi" not in p
                                  for p in swim["points"])
    week = (await _mcp(h, auth, "suggest_training_week", {"sport": "run"})
            )["structuredContent"]
    targets = [s.get("target") or "" for s in week["sessions"]]
    assert any("/mi" in t for t in targets) and not any("/km" in t for t in targets), targets
