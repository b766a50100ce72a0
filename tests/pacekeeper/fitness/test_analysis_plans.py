"""Issue 15 tools whose values were not yet checked by hand: `compare_activities`,
`detect_patterns` and `suggest_training_week`'s load arithmetic. Every expected figure is
built here from the stored items (sums, a least-squares line and its t-test written out,
a plain CTL loop), never read back from the service. SQLite and PostgreSQL.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from scipy import stats  # type: ignore[import-untyped]

from tests._pmc import plain_pmc
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _store, _today
from tests.pacekeeper.fitness.test_analysis_values import _curves


def _at(day: date, hour: float = 10.0) -> datetime:
    return datetime.combine(day, datetime.min.time(), UTC) + timedelta(hours=hour)


# -- compare_activities ---------------------------------------------------------------------


async def test_compare_activities_lines_up_the_stored_figures(harness: Harness) -> None:
    """A ride (power figures, power and HR curves) and a run (rTSS, a speed curve): each
    metric is a row with one value per activity (None where it does not apply), floats
    to three decimals, `load_method` left out; peaks at 5 s, 1 min, 5 min, 20 min and
    1 h of each curve the activity has; the summary names each one's date, sport and
    load."""
    h = harness
    auth, owner = await _person(h, "compare@example.com")
    today = _today(h)
    ride_day, run_day = today - timedelta(days=3), today - timedelta(days=1)
    ride_metrics = {
        "normalized_power": 251.23456, "intensity_factor": 0.8374485, "tss": 70.12345,
        "load": 70.12345, "load_method": "power", "avg_power": 231.0, "work_kj": 831.6,
        **_curves("power_curve", {5: 612.0, 60: 401.5, 300: 305.25, 1200: 262.0}),
    }
    ride_metrics["hr_curve"] = [180.0 if d <= 60 else 170.0
                                for d in ride_metrics["curve_durations"]]
    run_metrics = {"rtss": 55.5555, "load": 55.5555, "load_method": "running",
                   "avg_hr": 151.0, **_curves("speed_curve", {5: 5.4321, 60: 4.87654,
                                                              300: 4.2, 1200: 3.9, 3600: 3.5})}
    ride, run = await _store(h, owner, [
        {"start": _at(ride_day), "sport": "ride", "elapsed": 3600.4, "distance": 30123.6,
         "metrics": ride_metrics},
        {"start": _at(run_day, 7), "sport": "run", "elapsed": 3725.6, "distance": 12049.5,
         "metrics": run_metrics},
    ])
    body = (await _mcp(h, auth, "compare_activities",
                       {"activity_ids": [str(ride), str(run)]}))["structuredContent"]
    assert body["activities"] == [
        {"activity_id": str(ride), "name": None, "sport": "ride",
         "date": ride_day.isoformat(), "elapsed_s": 3600.0, "moving_s": 3600.0,
         "distance_m": 30124.0},
        {"activity_id": str(run), "name": None, "sport": "run",
         "date": run_day.isoformat(), "elapsed_s": 3726.0, "moving_s": 3726.0,
         "distance_m": 12050.0},
    ]
    # Named with their units, rounded by them (issue 27 item 14): W and bpm whole, TSS
    # points to 0.1, IF to 0.01, kJ whole; a run's best speeds as its pace in s/km.
    assert body["metrics"] == {
        "avg_hr_bpm": [None, 151], "avg_power_w": [231, None],
        "intensity_factor": [0.84, None], "load": [70.1, 55.6],
        "normalized_power_w": [251, None], "rtss": [None, 55.6], "tss": [70.1, None],
        "work_kj": [832, None]}
    assert body["peaks"] == {
        "power_5s_w": [612, None], "power_60s_w": [402, None], "power_300s_w": [305, None],
        "power_1200s_w": [262, None],
        "hr_5s_bpm": [180, None], "hr_60s_bpm": [180, None], "hr_300s_bpm": [170, None],
        "hr_1200s_bpm": [170, None],
        "pace_5s_s_per_km": [None, round(1000 / 5.432)],
        "pace_60s_s_per_km": [None, round(1000 / 4.877)],
        "pace_300s_s_per_km": [None, round(1000 / 4.2)],
        "pace_1200s_s_per_km": [None, round(1000 / 3.9)],
        "pace_3600s_s_per_km": [None, round(1000 / 3.5)]}
    assert body["summary"] == f"{ride_day} ride load 70; {run_day} run load 56"
    # The same activities in the other order: the columns swap, nothing else changes.
    swapped = (await _mcp(h, auth, "compare_activities",
                          {"activity_ids": [str(run), str(ride)]}))["structuredContent"]
    assert swapped["metrics"] == {k: v[::-1] for k, v in body["metrics"].items()}
    # 2 to 5 activities (the tool's own schema says so too).
    one = await _mcp(h, auth, "compare_activities", {"activity_ids": [str(ride)]})
    assert one.get("isError") is True or "error" in one, one


# -- detect_patterns ------------------------------------------------------------------------


def _line(y: list[float]) -> tuple[float, float]:
    """Least-squares slope through (0, y0), (1, y1), ... and the two-sided p-value of its
    t-test (n - 2 degrees of freedom), written out."""
    n = len(y)
    xm, ym = (n - 1) / 2, sum(y) / n
    sxx = sum((i - xm) ** 2 for i in range(n))
    sxy = sum((i - xm) * (v - ym) for i, v in enumerate(y))
    syy = sum((v - ym) ** 2 for v in y)
    slope = sxy / sxx
    r = sxy / math.sqrt(sxx * syy)
    if abs(r) >= 1 - 1e-12:
        return slope, 0.0
    t = r * math.sqrt((n - 2) / (1 - r * r))
    return slope, float(2 * stats.t.sf(abs(t), n - 2))


async def test_detect_patterns_by_hand(harness: Harness) -> None:
    """Four whole weeks before this one (the running week and anything older left out):
    weekly load 100 / 220 / 280 / 400, hours 1 / 2.5 / 3.25 / 4, the longest ride
    1 / 1.5 / 2 / 2.5 h and the longest run - / 1 / 1.25 / 1.5 h (a line and its t-test
    by hand), power zone times 3000/1500/600/300/200/100/50 s (Seiler's three zones:
    L1-L2, L3-L4, L5-L7), 7 sessions in 4 weeks, Tuesday four times."""
    h = harness
    auth, owner = await _person(h, "patterns@example.com")
    today = _today(h)
    monday = today - timedelta(days=today.weekday())
    first = monday - timedelta(weeks=4)
    zones = [3000.0, 1500.0, 600.0, 300.0, 200.0, 100.0, 50.0]
    week = [  # (week, weekday, sport, hours, load)
        (0, 1, "ride", 1.0, 100.0),
        (1, 1, "ride", 1.5, 120.0), (1, 5, "run", 1.0, 100.0),
        (2, 1, "ride", 2.0, 130.0), (2, 5, "run", 1.25, 150.0),
        (3, 1, "ride", 2.5, 250.0), (3, 5, "run", 1.5, 150.0),
    ]
    items: list[dict[str, Any]] = [
        {"start": _at(first + timedelta(weeks=w, days=d)), "sport": s, "elapsed": hrs * 3600,
         "metrics": {"load": load, **({"time_in_power_zones": zones} if w == 2 and s == "ride"
                                      else {})}}
        for w, d, s, hrs, load in week]
    items += [  # outside: the week before, and this (running) week
        {"start": _at(first - timedelta(days=2)), "sport": "ride", "elapsed": 36000.0,
         "metrics": {"load": 900.0}},
        {"start": _at(monday, 6), "sport": "run", "elapsed": 36000.0,
         "metrics": {"load": 900.0}},
    ]
    await _store(h, owner, items)

    body = (await _mcp(h, auth, "detect_patterns", {"weeks": 4}))["structuredContent"]
    assert body["from"] == first.isoformat()
    assert body["to"] == (monday - timedelta(days=1)).isoformat()
    found = {p["kind"]: p for p in body["patterns"]}
    assert [p["kind"] for p in body["patterns"]] == [
        "weekly_load_trend", "weekly_hours_trend", "long_ride_progression",
        "long_run_progression", "intensity_distribution", "consistency", "favourite_day"]

    for kind, series, key, scale, digits in (
            ("weekly_load_trend", [100.0, 220.0, 280.0, 400.0], "slope_load_per_week", 1, 2),
            ("weekly_hours_trend", [1.0, 2.5, 3.25, 4.0], "slope_h_per_week", 1, 2),
            ("long_ride_progression", [1.0, 1.5, 2.0, 2.5], "slope_min_per_week", 60, 2)):
        slope, p = _line(series)
        assert found[kind][key] == pytest.approx(round(slope * scale, digits)), kind
        assert found[kind]["p_value"] == pytest.approx(round(p, 3), abs=1e-3), kind
        assert found[kind]["direction"] == ("up" if p < 0.05 else "flat"), kind
    # 96 load a week (p = 0.008) and 0.975 h a week (p = 0.017): both significant.
    assert found["weekly_load_trend"]["slope_load_per_week"] == 96.0
    assert found["weekly_hours_trend"]["slope_h_per_week"] == pytest.approx(0.975, abs=0.0051)  # h/week to 0.01
    assert found["weekly_load_trend"]["direction"] == "up"
    # The run's first week has none: a line through three weeks, 15 min a week.
    run = found["long_run_progression"]
    assert run["slope_min_per_week"] == pytest.approx(15.0)

    total = sum(zones)
    low, mid, high = sum(zones[:2]) / total, sum(zones[2:4]) / total, sum(zones[4:]) / total
    dist = found["intensity_distribution"]
    assert dist["basis"] == "power"
    assert (dist["low_share"], dist["moderate_share"], dist["high_share"]) == (
        round(low, 3), round(mid, 3), round(high, 3))
    assert dist["polarization_index"] == round(
        math.log10(low * 100 / (mid * 100) * (high * 100)), 2)
    assert dist["finding"] == (f"pyramidal by power: low {low:.0%}, moderate {mid:.0%}, "
                               f"high {high:.0%}")  # 78 % easy: no 80/20 remark

    assert found["consistency"]["active_weeks"] == 4
    assert found["consistency"]["sessions_per_week"] == round(7 / 4, 1)  # a count a week, to a tenth
    assert (found["favourite_day"]["day"], found["favourite_day"]["count"]) == ("Tuesday", 4)
    three = "; ".join(p["finding"] for p in body["patterns"][:3])
    assert body["summary"] == f"{body['from']} to {body['to']}: {three}"


async def test_detect_patterns_falls_back_to_heart_rate(harness: Harness) -> None:
    """No activity in the four weeks has power zones (a ride with them before the period
    and one in the running week do not count): the distribution is read from the stored
    heart-rate zone times. Two Friel (7 zones of LTHR) activities, the latest model, by
    hand: zones 1-2 / 3-4 / 5a-5c summed over both, 6300 / 500 / 2500 s of 9300 s;
    Treff's index log10(67.7 / 5.4 x 26.9) = 2.53 > 2: polarized, and under 75 % easy. An
    older Karvonen (5-zone) activity is another model and stays out of the sum."""
    h = harness
    auth, owner = await _person(h, "patterns-hr@example.com")
    today = _today(h)
    monday = today - timedelta(days=today.weekday())
    first = monday - timedelta(weeks=4)
    friel_a = [1400.0, 2000.0, 100.0, 200.0, 700.0, 500.0, 300.0]
    friel_b = [1000.0, 1900.0, 100.0, 100.0, 500.0, 300.0, 200.0]
    power = {"time_in_power_zones": [9000.0, 0, 0, 0, 0, 0, 0]}
    await _store(h, owner, [
        {"start": _at(first - timedelta(days=1)), "sport": "ride",
         "metrics": {"load": 50.0, **power}},
        {"start": _at(first + timedelta(days=2)), "sport": "run",
         "metrics": {"load": 50.0, "time_in_hr_zones": [5000.0, 0, 0, 0, 5000.0],
                     "hr_zone_model": "karvonen"}},
        {"start": _at(first + timedelta(days=9)), "sport": "run", "metrics": {"load": 40.0}},
        {"start": _at(first + timedelta(days=15)), "sport": "ride",
         "metrics": {"load": 80.0, "time_in_hr_zones": friel_a,
                     "hr_zone_model": "friel_lthr"}},
        {"start": _at(first + timedelta(days=24)), "sport": "run",
         "metrics": {"load": 70.0, "time_in_hr_zones": friel_b,
                     "hr_zone_model": "friel_lthr"}},
        {"start": _at(monday, 6), "sport": "ride", "metrics": {"load": 50.0, **power}},
    ])
    body = (await _mcp(h, auth, "detect_patterns", {"weeks": 4}))["structuredContent"]
    dist = {p["kind"]: p for p in body["patterns"]}["intensity_distribution"]
    # By hand: 2400 + 3900 = 6300 low, 200 + 300 = 500 moderate, 1200 + 800 + 500 = 2500
    # high, 9300 s in all.
    low, mid, high = 6300 / 9300, 500 / 9300, 2500 / 9300
    assert (round(low, 3), round(mid, 3), round(high, 3)) == (0.677, 0.054, 0.269)
    index = math.log10(low * 100 / (mid * 100) * (high * 100))
    assert round(index, 3) == 2.53  # log10(338.7): above 2, polarized
    assert dist == {
        "kind": "intensity_distribution", "basis": "hr",
        "low_share": 0.677, "moderate_share": 0.054, "high_share": 0.269,
        "polarization_index": 2.53,
        "finding": "polarized by hr: low 68%, moderate 5%, high 27% (less than the 75-80 % "
                   "easy of Seiler's 80/20)"}


# -- suggest_training_week ------------------------------------------------------------------


def _plain(loads: list[float]) -> tuple[float, float, float]:
    """CTL and ATL after the last day, and TSB going into it (the tests' plain loop)."""
    return plain_pmc(loads)[-1]


BUILD = [(0.16, 0.95), (0.12, 0.65), (0.16, 0.85), (0.12, 0.65), (0.30, 0.70), (0.14, 0.65)]
EASY = [(0.25, 0.65), (0.25, 0.65), (0.3, 0.68), (0.2, 0.6)]


@pytest.mark.parametrize(("history", "phase"), [
    ([50.0] * 200, "build"),  # steady: form about 0, readiness about 49
    ([40.0] * 120 + [160.0] * 6, "recovery"),  # a crash week: form far below -25
    ([30.0] * 3, "start"),  # three sessions: CTL under 15
])
async def test_suggest_week_load_arithmetic(harness: Harness, history: list[float],
                                            phase: str) -> None:
    """Daily rides at the given loads up to yesterday, none today, no health recorded
    (readiness = 50 + 25 clip(TSB / 15, -2, 2)). By hand: CTL / ATL from a plain loop to
    today; the phase rule of docs/analytics.md ("Planning"); the week's load (build: the
    constant daily load that lifts CTL by the ramp min(5, max(2, 5 % CTL)) in 7 days,
    checked by running the loop 7 more days at it; recovery: 60 % of CTL x 7; start:
    250); each session its share of it and its minutes at 100 IF^2 TSS an hour."""
    h = harness
    auth, owner = await _person(h, f"plan-{phase}@example.com")
    today = _today(h)
    n = len(history)
    await _store(h, owner, [{"start": _at(today - timedelta(days=n - i)), "sport": "ride",
                             "metrics": {"load": x}} for i, x in enumerate(history)])
    ctl, atl, tsb_today = _plain([*history, 0.0])
    form = ctl - atl
    ready = round(50 + 25 * max(-2.0, min(2.0, tsb_today / 15)))
    body = (await _mcp(h, auth, "suggest_training_week", {}))["structuredContent"]
    assert body["phase"] == phase
    assert body["ctl"] == pytest.approx(round(ctl, 1))
    assert body["tsb_tomorrow"] == pytest.approx(round(form, 1))
    assert body["readiness"] == ready
    if phase == "build":
        assert ctl >= 15 and form >= -10 and ready >= 35
        ramp = min(5.0, max(2.0, 0.05 * ctl))
        k = math.exp(-1 / 42)
        # The daily load L with ctl k^7 + L (1 - k^7) = ctl + ramp, times 7.
        weekly = 7 * (ctl + ramp - ctl * k**7) / (1 - k**7)
        after, _, _ = _plain([*history, 0.0, *[weekly / 7] * 7])
        assert after == pytest.approx(ctl + ramp, abs=1e-9)  # the rule does what it says
        plan = BUILD
    elif phase == "recovery":
        assert ctl >= 15 and (form < -25 or ready < 35)
        weekly, plan = 0.6 * ctl * 7, EASY
    else:
        assert ctl < 15
        weekly, plan = 250.0, EASY
    assert body["target_load"] == round(weekly)
    sessions = [s for s in body["sessions"] if s["type"] != "rest"]
    assert len(body["sessions"]) == 7 and len(sessions) == len(plan)
    for s, (share, intensity) in zip(sessions, plan, strict=True):
        load = weekly * share
        assert s["load"] == round(load) and s["sport"] == "ride"
        minutes = max(20.0, min(300.0, load / (100 * intensity**2) * 60))
        assert abs(s["duration_min"] - minutes) <= 2.5 and s["duration_min"] % 5 == 0
    # The shares make the week: the sessions' loads add up to it (each rounded).
    assert abs(sum(s["load"] for s in sessions) - weekly) <= 0.5 * len(sessions)
    monday = date.fromisoformat(body["week_of"])
    assert monday.weekday() == 0 and 0 <= (monday - today).days < 7
    hard = sum(s["duration_min"] for s in sessions if s["type"] in ("intervals", "tempo"))
    total = sum(s["duration_min"] for s in sessions)
    assert body["easy_time_share"] == round(1 - hard / total, 2)


WEEK = ["rest", "intervals", "easy", "tempo", "easy", "long", "easy"]


@pytest.mark.parametrize(("phase", "today_load", "race_in", "sport"), [
    ("hold", 150.0, None, None),  # a hard day today: form about -11, readiness 49
    ("taper", 0.0, 14, None),  # a race goal in two weeks (a run by default)
    ("taper", 0.0, 8, "ride"),  # eight days out: still the taper, from next Monday
])
async def test_suggest_week_hold_taper(harness: Harness, phase: str, today_load: float,
                                       race_in: int | None, sport: str | None) -> None:
    """200 days of daily rides at 50 up to yesterday (and today's load), no health (so
    readiness = 50 + 25 clip(TSB / 15, -2, 2), TSB going into today). By hand: CTL and
    form after today from a plain loop; the phase rule of docs/analytics.md ("Planning"):
    a goal within 21 days (but more than 7: race week, below) is a taper at 70 %,
    otherwise form < -10 (and >= -25, readiness >= 35) holds at CTL x 7; the sessions are
    the build week's (rest, intervals IF 0.95 16 %, easy 0.65 12 %, tempo 0.85 16 %, easy
    12 %, long 0.70 30 %, easy 14 %), each its share of the week's load and
    load / (100 IF^2) hours, 20 min to 5 h, to the nearest 5 min."""
    h = harness
    auth, owner = await _person(h, f"plan-{phase}@example.com")
    today = _today(h)
    history = [50.0] * 200
    await _store(h, owner, [{"start": _at(today - timedelta(days=200 - i)), "sport": "ride",
                             "metrics": {"load": x}} for i, x in enumerate(history)]
                 + ([{"start": _at(today, 0.5), "sport": "ride",
                      "metrics": {"load": today_load}}] if today_load else []))
    args: dict[str, Any] = {} if sport is None else {"sport": sport}
    goal_id = None
    if race_in is not None:
        created = (await _mcp(h, auth, "set_goal", {
            "kind": "race", "distance_m": 10000, "time_s": 2700,
            "date": (today + timedelta(days=race_in)).isoformat()}))["structuredContent"]
        goal_id = args["goal_id"] = created["goal"]["id"]
    ctl, atl, tsb_today = _plain([*history, today_load])
    form = ctl - atl
    ready = round(50 + 25 * max(-2.0, min(2.0, tsb_today / 15)))
    body = (await _mcp(h, auth, "suggest_training_week", args))["structuredContent"]
    assert body["phase"] == phase
    assert body["ctl"] == pytest.approx(round(ctl, 1))
    assert body["tsb_tomorrow"] == pytest.approx(round(form, 1))
    assert body["readiness"] == ready  # 49: TSB about -0.4
    if phase == "hold":
        assert -25 <= form < -10 and ctl >= 15
        weekly = ctl * 7
        assert body["goal"] is None
    else:
        weekly = 0.7 * ctl * 7
        assert body["goal"]["id"] == goal_id
    assert body["target_load"] == round(weekly)
    assert [s["type"] for s in body["sessions"]] == WEEK
    shares = [0.0, 0.16, 0.12, 0.16, 0.12, 0.30, 0.14]
    intensity = [None, 0.95, 0.65, 0.85, 0.65, 0.70, 0.65]
    expected_sport = sport or ("run" if race_in is not None else "ride")
    monday = date.fromisoformat(body["week_of"])
    assert monday.weekday() == 0 and 0 <= (monday - today).days < 7
    for i, (s, share, f) in enumerate(zip(body["sessions"], shares, intensity,
                                          strict=True)):
        assert s["date"] == (monday + timedelta(days=i)).isoformat()
        if f is None:
            assert (s["sport"], s["duration_min"], s["load"], s["target"]) == (
                None, 0, 0.0, "rest")
            continue
        load = weekly * share
        hours = load / (100 * f * f)
        assert s["sport"] == expected_sport
        assert s["load"] == round(load)
        assert s["duration_min"] == 5 * round(max(20.0, min(300.0, hours * 60)) / 5)
    assert sum(shares) == pytest.approx(1.0)
    hard = sum(s["duration_min"] for s in body["sessions"][1:4:2])  # intervals, tempo
    total = sum(s["duration_min"] for s in body["sessions"])
    assert body["easy_time_share"] == round(1 - hard / total, 2)


HINT = " (set ftp_watts, threshold_pace_s_per_km or lthr_bpm for numbers)"


@pytest.mark.parametrize(("race_in", "sport"), [
    (5, "ride"),  # a run race in five days, the week asked for on the bike
    (0, None),  # the race is today
    (1, None),  # the race is tomorrow
    (7, None),  # a week out: the plan runs to the race, 8 days
])
async def test_suggest_week_race_week(harness: Harness, race_in: int,
                                      sport: str | None) -> None:
    """200 days of rides at 50 up to yesterday, a 10 km run race goal in 45:00 ``race_in``
    days from today. Race week (docs/analytics.md, "Planning", after Friel's pre-race
    week): the plan starts today, lists today .. today + 6 (to the race when it is 7 days
    out), never a long session. By hand, W = 0.5 CTL x 7 (CTL from a plain loop, about
    48.4, W about 169.4):

    - race day R: the goal's run, 45 min, load 0.75 h x 100 = 75;
    - R-1 opener: 20 min at IF 0.65, load 1/3 x 100 x 0.4225 = 14.08;
    - R-2 rest;
    - the n days before R-2 share E = (W - 75 - 14.08) / n each (5 days out: n = 3,
      E = 26.8, easy 38.0 -> 40 min, tempo at R-4 22.2 -> 20 min; 7 days out: n = 5,
      E = 16.1, easy 22.8 -> 25 min, the tempo 13.3 min held at the 20 min floor);
    - R+1 rest, then easy recovery runs of 30 min at IF 0.6, load 18."""
    h = harness
    auth, owner = await _person(h, f"plan-race-{race_in}@example.com")
    today = _today(h)
    await _store(h, owner, [{"start": _at(today - timedelta(days=200 - i)), "sport": "ride",
                             "metrics": {"load": 50.0}} for i in range(200)])
    race = today + timedelta(days=race_in)
    created = (await _mcp(h, auth, "set_goal", {
        "kind": "race", "distance_m": 10000, "time_s": 2700,
        "date": race.isoformat()}))["structuredContent"]
    args: dict[str, Any] = {"goal_id": created["goal"]["id"]}
    if sport:
        args["sport"] = sport
    ctl, _, _ = _plain([50.0] * 200 + [0.0])
    weekly = 0.5 * ctl * 7
    assert ctl == pytest.approx(48.406, abs=1e-3)
    opener = 20 / 60 * 100 * 0.65**2
    assert opener == pytest.approx(14.083, abs=1e-3)
    other = sport or "run"  # the sessions' sport; the race is the goal's (a run)
    easy_t = "Z2 endurance" + HINT
    tempo_t = "sweet spot / tempo" + HINT
    race_row = (0, "race", "run", 75, 45, "race: 10 km, goal 45:00 (4:30/km)")
    opener_row = (-1, "opener", other, 14, 20,
                  "opener: 20 min easy with 3-4 x 1 min at race pace")
    recovery = (other, 18, 30, "recovery: " + easy_t)
    # (days from the race, type, sport, load, minutes, target); rest rows: sport None, 0, 0
    rest: tuple[Any, ...] = (None, 0, 0, "rest")
    if race_in == 5:
        e = (weekly - 75 - opener) / 3
        assert e == pytest.approx(26.78, abs=0.01)
        assert e / (100 * 0.65**2) * 60 == pytest.approx(38.03, abs=0.01)  # -> 40
        assert e / (100 * 0.85**2) * 60 == pytest.approx(22.24, abs=0.01)  # -> 20
        rows = [(-5, "easy", other, 27, 40, easy_t), (-4, "tempo", other, 27, 20, tempo_t),
                (-3, "easy", other, 27, 40, easy_t), (-2, "rest", *rest), opener_row,
                race_row, (1, "rest", *rest)]
    elif race_in == 7:
        e = (weekly - 75 - opener) / 5
        assert e == pytest.approx(16.07, abs=0.01)
        assert e / (100 * 0.65**2) * 60 == pytest.approx(22.82, abs=0.01)  # -> 25
        assert e / (100 * 0.85**2) * 60 < 20  # the 20 min floor
        rows = [(-7, "easy", other, 16, 25, easy_t), (-6, "easy", other, 16, 25, easy_t),
                (-5, "easy", other, 16, 25, easy_t), (-4, "tempo", other, 16, 20, tempo_t),
                (-3, "easy", other, 16, 25, easy_t), (-2, "rest", *rest), opener_row,
                race_row]
    elif race_in == 1:
        rows = [opener_row, race_row, (1, "rest", *rest), *[(k, "easy", *recovery)
                                                             for k in range(2, 6)]]
    else:
        rows = [race_row, (1, "rest", *rest), *[(k, "easy", *recovery) for k in range(2, 7)]]
    body = (await _mcp(h, auth, "suggest_training_week", args))["structuredContent"]
    assert body["phase"] == "race_week"
    assert body["week_of"] == today.isoformat()
    assert body["target_load"] == round(weekly)
    got = [((date.fromisoformat(s["date"]) - race).days, s["type"], s["sport"], s["load"],
            s["duration_min"], s["target"]) for s in body["sessions"]]
    assert got == [(k, kind, sp, float(load), minutes, target)
                   for k, kind, sp, load, minutes, target in rows]
    assert got[0][0] == -race_in  # today first, one day after another
    assert [s["day"] for s in body["sessions"]] == [
        (today + timedelta(days=i)).strftime("%A") for i in range(len(rows))]
    hard = sum(r[4] for r in rows if r[1] in ("tempo", "race"))
    assert body["easy_time_share"] == round(1 - hard / sum(r[4] for r in rows), 2)
    # The HTTP twin answers the same plan.
    query = "&".join(f"{k}={v}" for k, v in args.items())
    http = await h.client.get(f"/api/training-week?{query}", headers=auth)
    assert http.status_code == 200, http.text
    assert http.json()["sessions"] == body["sessions"]
    assert {k: http.json()[k] for k in ("phase", "week_of", "target_load", "summary")} == {
        k: body[k] for k in ("phase", "week_of", "target_load", "summary")}


@pytest.mark.parametrize(("kind", "value", "days"), [
    ("ftp", 260.0, 3), ("weight", 70.0, 0), ("volume", 8.0, 14)])
async def test_suggest_week_tapers_only_for_a_race(harness: Harness, kind: str,
                                                   value: float, days: int) -> None:
    """A goal that is not a race (an FTP, a weight, a weekly volume) is a target, not an
    event: no taper and no race week before its date, and no day marked "race". The week
    is the one the same history gets without a goal (here a build week: 200 days of rides
    at 50, form about +1.4), planned from next Monday, with the goal echoed."""
    h = harness
    auth, owner = await _person(h, f"plan-{kind}@example.com")
    today = _today(h)
    await _store(h, owner, [{"start": _at(today - timedelta(days=200 - i)), "sport": "ride",
                             "metrics": {"load": 50.0}} for i in range(200)])
    created = (await _mcp(h, auth, "set_goal", {
        "kind": kind, "value": value,
        "date": (today + timedelta(days=days)).isoformat()}))["structuredContent"]
    plain = (await _mcp(h, auth, "suggest_training_week", {}))["structuredContent"]
    body = (await _mcp(h, auth, "suggest_training_week",
                       {"goal_id": created["goal"]["id"]}))["structuredContent"]
    assert plain["phase"] == "build"
    assert body["phase"] == "build"
    assert body["goal"]["id"] == created["goal"]["id"]
    assert {k: body[k] for k in ("week_of", "target_load", "sessions")} == {
        k: plain[k] for k in ("week_of", "target_load", "sessions")}
    assert "race" not in {s["type"] for s in body["sessions"]}
    assert date.fromisoformat(body["week_of"]).weekday() == 0


async def test_suggest_week_targets_from_the_athletes_thresholds(harness: Harness) -> None:
    """A build week (200 days of rides at 50) for a person with FTP 280 W, threshold pace
    4:00/km and LTHR 170, asked for on the bike, on foot and in the pool (no power or pace
    threshold: heart rate). The targets by hand from the thresholds:

    - power (Coggan's levels, % FTP): easy and long 56-75 % = 156.8-210 W, sweet spot
      88-94 % = 246.4-263.2 W, VO2max 106-120 % = 296.8-336 W;
    - pace (the athlete's own Friel pace zones, % of threshold pace, the zones
      `calculate_zones` gives): easy and long in zone 2, 114-129 % = 273.6-309.6 s/km;
      tempo 240 / 0.94 - 240 / 0.88 = 255.3-272.7 s/km (inside zone 3, 106-114 %);
      intervals 240 / 1.11 - 240 / 1.03 = 216.2-233.0 s/km (zone 5b, 90-97 %);
    - heart rate (Friel, % LTHR): easy and long 81-89 % = 137.7-151.3 bpm, tempo
      90-96 % = 153-163.2 bpm, intervals 100-106 % = 170-180.2 bpm.

    A person with no thresholds gets the zone names and what to set."""
    h = harness
    auth, owner = await _person(h, "plan-targets@example.com")
    today = _today(h)
    await _store(h, owner, [{"start": _at(today - timedelta(days=200 - i)), "sport": "ride",
                             "metrics": {"load": 50.0}} for i in range(200)])
    patched = await h.client.patch("/api/athlete", headers=auth, json={
        "ftp_watts": 280, "threshold_pace_s_per_km": 240, "lthr_bpm": 170,
        "valid_from": "2000-01-01"})
    assert patched.status_code == 200, patched.text
    intervals, easy, tempo = ("Z5 VO2max intervals, 4-6 x 3-5 min", "Z2 endurance",
                              "sweet spot / tempo")
    expected = {
        "ride": {"intervals": f"{intervals}: 297-336 W", "easy": f"{easy}: 157-210 W",
                 "tempo": f"{tempo}: 246-263 W", "long": f"{easy}: 157-210 W"},
        "run": {"intervals": f"{intervals}: 3:36/km-3:53/km",
                "easy": f"{easy}: 4:34/km-5:10/km", "tempo": f"{tempo}: 4:15/km-4:33/km",
                "long": f"{easy}: 4:34/km-5:10/km"},
        "swim": {"intervals": f"{intervals}: 170-180 bpm", "easy": f"{easy}: 138-151 bpm",
                 "tempo": f"{tempo}: 153-163 bpm", "long": f"{easy}: 138-151 bpm"},
    }
    for sport, targets in expected.items():
        body = (await _mcp(h, auth, "suggest_training_week",
                           {"sport": sport}))["structuredContent"]
        assert body["phase"] == "build"
        assert {s["type"]: s["target"] for s in body["sessions"]} == {
            "rest": "rest", **targets}, sport

    bare_auth, bare = await _person(h, "plan-bare@example.com")
    await _store(h, bare, [{"start": _at(today - timedelta(days=200 - i)), "sport": "run",
                            "metrics": {"load": 50.0}} for i in range(200)])
    body = (await _mcp(h, bare_auth, "suggest_training_week", {}))["structuredContent"]
    hint = " (set ftp_watts, threshold_pace_s_per_km or lthr_bpm for numbers)"
    assert {s["type"]: s["target"] for s in body["sessions"]} == {
        "rest": "rest", "intervals": intervals + hint, "easy": easy + hint,
        "tempo": tempo + hint, "long": easy + hint}
