"""The sandbox's synthetic data is deterministic and physiologically coherent."""

from __future__ import annotations

import math
from datetime import date, timedelta

import pytest

from pacekeeper.providers.sandbox import _generator as gen
from pacekeeper.providers.sandbox import activity_on, athlete, streams


def _first(athlete_id: int, sport: str, outdoor: bool = True) -> gen.SandboxActivity:
    day = date(2026, 3, 1)
    for offset in range(200):
        act = activity_on(athlete_id, day + timedelta(days=offset))
        if act is not None and act.sport == sport and act.trainer is not outdoor:
            return act
    raise AssertionError("no such activity")


def _corr(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy)


def test_same_ids_give_same_data() -> None:
    act = _first(1, "Ride")
    assert activity_on(1, act.start.date()) == act
    assert gen.activity_by_id(act.id) == act
    assert streams(act.id).heartrate[:100] == gen.synthetic_streams.__wrapped__(act.id).heartrate[:100]
    assert athlete(2) != athlete(3)


def test_heart_rate_lags_power() -> None:
    st = streams(_first(1, "Ride").id)
    watts = [float(w) for w in st.watts]
    hr = [float(h) for h in st.heartrate]
    lags = range(0, 121, 10)
    # Correlate power now with heart rate `lag` seconds later: the best match is later.
    scores = {lag: _corr(watts[: len(watts) - lag], hr[lag:]) for lag in lags}
    best = max(scores, key=lambda lag: scores[lag])
    assert 10 <= best <= 90
    assert scores[best] > scores[0]


def test_heart_rate_and_cadence_are_plausible() -> None:
    act = _first(2, "Ride")
    ath = athlete(2)
    st = streams(act.id)
    assert all(ath.rest_hr <= h <= ath.max_hr for h in st.heartrate)
    for watts, cadence in zip(st.watts, st.cadence, strict=True):
        if watts == 0:
            assert cadence == 0  # coasting
        else:
            assert 70 <= cadence <= 110
    run = streams(_first(2, "Run").id)
    assert all(75 <= c <= 100 for c in run.cadence[60:])  # strides per minute, as Strava


def test_altitude_is_smooth_and_gps_follows_speed() -> None:
    st = streams(_first(3, "Ride").id)
    assert max(abs(b - a) for a, b in zip(st.altitude, st.altitude[1:], strict=False)) < 2.0
    for i in range(100, len(st.time), 500):
        (la1, lo1), (la2, lo2) = st.latlng[i - 1], st.latlng[i]
        dy = (la2 - la1) * 111_320
        dx = (lo2 - lo1) * 111_320 * math.cos(math.radians(la1))
        assert math.hypot(dx, dy) == pytest.approx(st.velocity[i], abs=0.3)
        assert st.distance[i] - st.distance[i - 1] == pytest.approx(st.velocity[i], abs=0.15)


def test_months_of_history() -> None:
    acts = gen.activities_between(4, date(2026, 1, 1), date(2026, 4, 30))
    assert 50 <= len(acts) <= 90  # about four days in seven
    assert {a.sport for a in acts} == {"Ride", "Run"}
