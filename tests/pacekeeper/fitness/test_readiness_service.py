"""Readiness (issue 15) from stored daily health, on SQLite and PostgreSQL, against values
computed here by hand from the documented formula (docs/analytics.md, the table's
`readiness` row, and `analytics/_readiness.py`'s docstring; after Plews et al. 2013 and
Altini & Plews 2021), with `math` and `statistics` only, never the engine:

- HRV: ln rMSSD, the mean of the last 7 days against the mean and sample SD of the 60 days
  ending today (missing days left out), z = (recent - mean) / SD; weight 0.35.
- Resting HR: the same on bpm, the sign flipped (lower is better); weight 0.20.
- Sleep duration: z = (h - 7.5) / 1; weight 0.15. Sleep score: z = (score - 75) / 12.5;
  weight 0.10. TSB: z = TSB / 15; weight 0.20.
- s = clip(z, -2, 2) / 2; score = 50 + 50 sum(w s) / sum(w) over the inputs present; each
  input's points are 50 w s / sum(w).
- TSB of today = CTL(d-1) - ATL(d-1) (docs/analytics.md), with CTL and ATL the
  exponential averages of sports-science.md (e^(-1/42), e^(-1/7)), from zero.

And at the edges (no HRV, no sleep, a short history, nothing at all, a flat series): a
clear answer that names the inputs it used, and no NaN anywhere in the readiness, the
recovery status or the training summary, over HTTP and over MCP (SMCP-4: the person is the
token's; ERR-1: a bad date is a 400 `{error, message}`).
"""

from __future__ import annotations

import json
import math
import random
import statistics
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from pacekeeper.fitness import DailyHealth, Owner
from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness.test_analysis import _mcp, _person, _store

WEIGHTS = {"hrv": 0.35, "resting_hr": 0.20, "sleep_duration": 0.15, "sleep_score": 0.10,
           "tsb": 0.20}


def _strict(text: str) -> Any:
    """JSON that refuses NaN and Infinity (Python's json accepts them by default)."""
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in a response")
    return json.loads(text, parse_constant=refuse)


def _finite(value: Any) -> None:
    if isinstance(value, float):
        assert math.isfinite(value), value
    elif isinstance(value, dict):
        for v in value.values():
            _finite(v)
    elif isinstance(value, list):
        for v in value:
            _finite(v)


def _baseline_z(series: list[float | None]) -> tuple[float, float, float] | None:
    """(recent mean, baseline mean, z) over the last 7 and the 60 days, by hand."""
    base = [x for x in series[-60:] if x is not None]
    recent = [x for x in series[-7:] if x is not None]
    if not recent or len(base) < 7:
        return None
    mean, sd = statistics.fmean(base), statistics.stdev(base)
    return statistics.fmean(recent), mean, (0.0 if sd == 0 else
                                            (statistics.fmean(recent) - mean) / sd)


def _tsb(loads_days_ago: dict[int, float]) -> float:
    a, b = math.exp(-1 / 42), math.exp(-1 / 7)
    # Each load's impulse, read on the day before today (k - 1 days after it).
    return sum(load * ((1 - a) * a ** (k - 1) - (1 - b) * b ** (k - 1))
               for k, load in loads_days_ago.items())


def _expected(hrv: list[float | None] | None, rhr: list[float | None] | None,
              sleep_h: float | None, score: float | None, tsb: float
              ) -> tuple[float, dict[str, dict[str, float]]]:
    raw: dict[str, tuple[float, float, float]] = {}
    if hrv is not None:
        got = _baseline_z([None if x is None or x <= 0 else math.log(x) for x in hrv])
        if got:
            raw["hrv"] = (math.exp(got[0]), math.exp(got[1]), got[2])
    if rhr is not None:
        got = _baseline_z(rhr)
        if got:
            raw["resting_hr"] = (got[0], got[1], -got[2])
    if sleep_h is not None:
        raw["sleep_duration"] = (sleep_h, 7.5, (sleep_h - 7.5) / 1.0)
    if score is not None:
        raw["sleep_score"] = (score, 75.0, (score - 75.0) / 12.5)
    raw["tsb"] = (tsb, 0.0, tsb / 15.0)
    total = sum(WEIGHTS[k] for k in raw)
    inputs = {}
    for name, (value, base, z) in raw.items():
        points = 50 * WEIGHTS[name] * (max(-2.0, min(2.0, z)) / 2) / total
        inputs[name] = {"value": value, "baseline": base, "z": z, "points": points}
    return 50 + sum(i["points"] for i in inputs.values()), inputs


async def _health(h: Harness, owner: Owner, today: date, source: str, *,
                  hrv: list[float | None] | None = None,
                  rhr: list[float | None] | None = None,
                  sleep_s: float | None = None, sleep_score: float | None = None) -> None:
    """Series oldest first, the last value today; None: no figure that day."""
    n = max(len(hrv or []), len(rhr or []), 1)
    days = []
    for i in range(n):
        day = today - timedelta(days=n - 1 - i)
        days.append(DailyHealth(
            day, source, hrv_rmssd_ms=hrv[i] if hrv else None,
            resting_hr=rhr[i] if rhr else None,
            sleep_s=sleep_s if i == n - 1 else None,
            sleep_score=sleep_score if i == n - 1 else None))
    await h.services.fitness.store.upsert_daily(owner, days, h.clock())


def _realistic(seed: int) -> tuple[list[float | None], list[float | None]]:
    """60 days of a trained person's morning rMSSD (log-normal about 62 ms, CV ~ 8 %) and
    resting HR (about 50 bpm), a few days not worn, the last week strained: rMSSD down
    about 15 %, resting HR up about 3 bpm."""
    rng = random.Random(seed)
    hrv: list[float | None] = []
    rhr: list[float | None] = []
    for i in range(60):
        strained = i >= 53
        worn = rng.random() > 0.08 or i == 59
        h = 62 * math.exp(rng.gauss(0, 0.08)) * (0.85 if strained else 1.0)
        r = 50 + rng.gauss(0, 1.5) + (3 if strained else 0)
        hrv.append(round(h, 1) if worn else None)
        rhr.append(round(r) if worn else None)
    return hrv, rhr


async def _readiness(h: Harness, auth: dict[str, str], day: date | None = None
                     ) -> dict[str, Any]:
    params = {} if day is None else {"date": day.isoformat()}
    response = await h.client.get("/api/readiness", params=params, headers=auth)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = _strict(response.text)
    return body


def _check(body: dict[str, Any], score: float, inputs: dict[str, dict[str, float]],
           own: dict[str, float | None] | None = None) -> None:
    """``own``: the day's own HRV and resting HR (what the daily summary shows, issue 27
    item 12): an input's ``value``; the 7-day mean it is scored on is ``mean_7d``. Each
    figure is rounded by the input's unit (issue 27 item 14): HRV to 0.1 ms, heart rate
    to the beat, sleep to 0.1 h, TSB to 0.1."""
    assert body["score"] == round(score)
    assert {i["name"] for i in body["inputs"]} == set(inputs)
    for got in body["inputs"]:
        want = inputs[got["name"]]
        assert got["weight"] == WEIGHTS[got["name"]]
        places = {"hrv": 1, "resting_hr": 0, "sleep_duration": 1, "sleep_score": 0,
                  "tsb": 1}[got["name"]]
        half = 0.5 / 10 ** places + 1e-9
        if got["name"] in ("hrv", "resting_hr"):
            assert abs(got["mean_7d"] - want["value"]) <= half
            day_value = (own or {}).get(got["name"])
            assert got["value"] == (None if day_value is None else round(day_value, places))
        else:
            assert abs(got["value"] - want["value"]) <= half
        assert abs(got["baseline"] - want["baseline"]) <= half
        assert abs(got["z"] - want["z"]) <= 0.005 + 1e-9
        assert abs(got["score_points"] - want["points"]) <= 0.05 + 1e-9
    names = ", ".join(i["name"] for i in body["inputs"])
    assert body["summary"].split("; without ")[0].endswith(f"from {names}")


async def test_a_strained_week_against_the_formula_by_hand(harness: Harness) -> None:
    """Sixty realistic days (a few unworn), a strained last week, a short night, and
    three recent rides: every input and the score as computed by hand."""
    auth, owner = await _person(harness, "tired@example.com")
    today = harness.clock().date()
    hrv, rhr = _realistic(15)
    await _health(harness, owner, today, "garmin", hrv=hrv, rhr=rhr, sleep_s=6.4 * 3600,
                  sleep_score=68)
    loads = {1: 140.0, 2: 95.0, 4: 180.0}  # days ago: TSS
    await _store(harness, owner, [
        {"start": datetime.combine(today - timedelta(days=k), datetime.min.time(), UTC)
         + timedelta(hours=7), "metrics": {"load": load}} for k, load in loads.items()])
    tsb = _tsb(loads)
    assert tsb < -15  # a loaded week: the TSB input is negative too
    score, inputs = _expected(hrv, rhr, 6.4, 68.0, tsb)
    body = await _readiness(harness, auth)
    _check(body, score, inputs, {"hrv": hrv[-1], "resting_hr": rhr[-1]})
    assert abs(body["tsb"] - tsb) <= 0.05 + 1e-9
    assert inputs["hrv"]["z"] < -1 and inputs["resting_hr"]["z"] < -1  # the strain shows
    assert body["level"] == "low" and body["score"] < 40
    # The same answer over MCP, for the token's person (SMCP-4).
    result = await _mcp(harness, auth, "get_readiness", {})
    assert result["structuredContent"]["score"] == body["score"]
    assert result["structuredContent"]["inputs"] == body["inputs"]


async def test_a_rested_week_reads_high(harness: Harness) -> None:
    """The mirror case by hand: rMSSD up, resting HR down, a long night, no training."""
    auth, owner = await _person(harness, "fresh@example.com")
    today = harness.clock().date()
    hrv, rhr = _realistic(16)
    hrv = [None if x is None else round(x / 0.85 * 1.1, 1) if i >= 53 else x
           for i, x in enumerate(hrv)]
    rhr = [None if x is None else x - 6 if i >= 53 else x for i, x in enumerate(rhr)]
    await _health(harness, owner, today, "fitbit", hrv=hrv, rhr=rhr, sleep_s=8.6 * 3600,
                  sleep_score=88)
    score, inputs = _expected(hrv, rhr, 8.6, 88.0, 0.0)
    body = await _readiness(harness, auth)
    _check(body, score, inputs, {"hrv": hrv[-1], "resting_hr": rhr[-1]})
    assert body["level"] == "high"


async def test_without_hrv_the_other_inputs_carry_the_score(harness: Harness) -> None:
    """A device with no HRV: the score comes from resting HR, sleep and TSB, their
    weights renormalised (sum 0.65), and the answer does not name HRV."""
    auth, owner = await _person(harness, "nohrv@example.com")
    today = harness.clock().date()
    _, rhr = _realistic(17)
    await _health(harness, owner, today, "garmin", rhr=rhr, sleep_s=7.1 * 3600,
                  sleep_score=None)
    score, inputs = _expected(None, rhr, 7.1, None, 0.0)
    body = await _readiness(harness, auth)
    _check(body, score, inputs, {"resting_hr": rhr[-1]})
    # HRV is not among the inputs, and the answer says it is missing (issue 27 item 13)
    assert "hrv" not in body["summary"].split("; without ")[0]
    assert body["missing"] == ["hrv", "training"]


async def test_without_sleep_last_night(harness: Harness) -> None:
    """No sleep recorded for today (the watch was off overnight): no sleep input, and a
    night two days ago does not stand in for it."""
    auth, owner = await _person(harness, "nosleep@example.com")
    today = harness.clock().date()
    hrv, rhr = _realistic(18)
    await _health(harness, owner, today, "fitbit", hrv=hrv, rhr=rhr)
    await harness.services.fitness.store.upsert_daily(owner, [DailyHealth(
        today - timedelta(days=2), "fitbit", sleep_s=9 * 3600.0, sleep_score=90.0)],
        harness.clock())
    score, inputs = _expected(hrv, rhr, None, None, 0.0)
    body = await _readiness(harness, auth)
    _check(body, score, inputs, {"hrv": hrv[-1], "resting_hr": rhr[-1]})
    assert not {"sleep_duration", "sleep_score"} & {i["name"] for i in body["inputs"]}


async def test_a_short_history(harness: Harness) -> None:
    """Five days of HRV and resting HR are no baseline (fewer than 7 days): left out;
    ten days are one, by hand over the ten."""
    auth, owner = await _person(harness, "new@example.com")
    today = harness.clock().date()
    await _health(harness, owner, today, "fitbit", hrv=[55.0, 61.2, 58.4, 49.9, 52.3],
                  rhr=[52.0, 50.0, 51.0, 54.0, 53.0], sleep_s=6.9 * 3600, sleep_score=71)
    score, inputs = _expected(None, None, 6.9, 71.0, 0.0)
    body = await _readiness(harness, auth)
    _check(body, score, inputs)
    assert set(inputs) == {"sleep_duration", "sleep_score", "tsb"}

    auth, owner = await _person(harness, "ten@example.com")
    hrv = [57.0, 63.5, 60.1, 55.2, 66.0, 59.4, 52.8, 50.1, 54.6, 49.7]
    rhr = [49.0, 50.0, 48.0, 51.0, 49.0, 50.0, 53.0, 54.0, 52.0, 53.0]
    await _health(harness, owner, today, "fitbit", hrv=list(hrv), rhr=list(rhr))
    score, inputs = _expected(list(hrv), list(rhr), None, None, 0.0)
    assert set(inputs) == {"hrv", "resting_hr", "tsb"}
    _check(await _readiness(harness, auth), score, inputs,
           {"hrv": hrv[-1], "resting_hr": rhr[-1]})


async def test_nothing_recorded_and_flat_series_give_finite_answers(harness: Harness) -> None:
    """A new person with no health and no training: no score (it read "50/100 (normal)",
    issue 27 item 13), what is missing and how to get it. A flat series (SD 0) and a
    zero rMSSD (not a value: its log is undefined) give z 0 and no NaN. Readiness,
    recovery status and training summary stay finite."""
    auth, owner = await _person(harness, "empty@example.com")
    body = await _readiness(harness, auth)
    assert body["score"] is None and body["level"] == "no_data" and body["inputs"] == []
    assert body["missing"] == ["hrv", "resting_hr", "sleep", "training"]
    assert "no HRV, resting heart rate or sleep recorded and no training load" in \
        body["summary"] and "Connections page" in body["summary"]
    assert "50" not in body["summary"]

    flat_auth, flat = await _person(harness, "flat@example.com")
    today = harness.clock().date()
    await _health(harness, flat, today, "garmin", hrv=[0.0] + [60.0] * 59,
                  rhr=[50.0] * 60, sleep_s=7.5 * 3600, sleep_score=75)
    flat_body = await _readiness(harness, flat_auth)
    assert flat_body["score"] == 50
    assert {i["name"]: i["z"] for i in flat_body["inputs"]} == {
        "hrv": 0.0, "resting_hr": 0.0, "sleep_duration": 0.0, "sleep_score": 0.0, "tsb": 0.0}

    for who in (auth, flat_auth):
        for path in ("/api/readiness", "/api/recovery", "/api/training-summary"):
            response = await harness.client.get(path, headers=who)
            assert response.status_code == 200, response.text
            _finite(_strict(response.text))
        for tool in ("get_readiness", "get_recovery_status", "get_training_summary"):
            result = await _mcp(harness, who, tool, {})
            assert not result.get("isError"), result
            _finite(result["structuredContent"])
    # Long ago, before anything: the same clear "no data" answer.
    old = await _readiness(harness, flat_auth, today - timedelta(days=4000))
    assert old["score"] is None and old["inputs"] == []


async def test_a_bad_date_is_a_clear_400(harness: Harness) -> None:
    """ERR-1: `{error, message}`, nothing else."""
    auth, _ = await _person(harness, "baddate@example.com")
    response = await harness.client.get("/api/readiness", params={"date": "yesterday"},
                                        headers=auth)
    assert response.status_code == 400
    assert set(response.json()) == {"error", "message"}


async def test_readiness_reads_only_its_own_persons_health(harness: Harness) -> None:
    """Another person's strained week never enters this person's readiness."""
    auth, _ = await _person(harness, "mine@example.com")
    _, other = await _person(harness, "theirs@example.com")
    today = harness.clock().date()
    hrv, rhr = _realistic(19)
    await _health(harness, other, today, "garmin", hrv=hrv, rhr=rhr, sleep_s=4 * 3600,
                  sleep_score=30)
    body = await _readiness(harness, auth)
    assert body["score"] is None and body["inputs"] == []



async def test_training_summary_readiness_by_hand(harness: Harness) -> None:
    """The readiness inside get_training_summary (HTTP and MCP), from two devices' stored
    days (a ring's rMSSD, one night missing; a watch's resting HR and last night's sleep)
    and a hard block of rides three to four weeks ago. By hand: ln rMSSD and resting HR,
    the last 7 of the 40 days against all 40 (mean, sample SD); sleep 8.2 h and score 84
    against 7.5 h and 75; TSB from the rides' impulses; s = clip(z, -2, 2) / 2 and
    score = 50 + 50 sum(w s) / sum(w) = 49, level "normal" (40-64). The inputs pull
    apart (rMSSD far down, clipped; resting HR down, sleep and form good), so a weight
    moved by 0.05 either way moves the rounded score. The summary's TSB is the same hand
    value."""
    auth, owner = await _person(harness, "summary-ready@example.com")
    today = harness.clock().date()
    hrv: list[float | None] = [62.0 + 2 * ((i * 7) % 5 - 2) for i in range(33)]
    hrv += [50.0, 48.5, None, 47.8, 49.2, 46.9, 48.0]
    hrv[10] = None
    rhr: list[float | None] = [50.0 + (i * 2) % 3 for i in range(33)]
    rhr += [49.0, 48.0, 48.0, 49.0, 47.0, 48.0, 48.0]
    await _health(harness, owner, today, "oura", hrv=hrv)
    await _health(harness, owner, today, "garmin", rhr=rhr, sleep_s=8.2 * 3600,
                  sleep_score=84)
    loads = {k: 110.0 for k in range(18, 30)}  # days ago: TSS
    await _store(harness, owner, [
        {"start": datetime.combine(today - timedelta(days=k), datetime.min.time(), UTC)
         + timedelta(hours=17), "metrics": {"load": load}} for k, load in loads.items()])

    logs = [math.log(x) for x in hrv if x is not None]
    recent_logs = [math.log(x) for x in hrv[-7:] if x is not None]
    beats = [x for x in rhr if x is not None]
    z_hrv = (statistics.fmean(recent_logs) - statistics.fmean(logs)) / statistics.stdev(logs)
    z_rhr = -(statistics.fmean(beats[-7:]) - statistics.fmean(beats)) / statistics.stdev(beats)
    tsb = _tsb(loads)
    zs = {"hrv": z_hrv, "resting_hr": z_rhr, "sleep_duration": (8.2 - 7.5) / 1.0,
          "sleep_score": (84 - 75) / 12.5, "tsb": tsb / 15}

    def by_hand(weights: dict[str, float]) -> float:
        return 50 + 50 * sum(weights[k] * max(-2.0, min(2.0, z)) / 2
                             for k, z in zs.items()) / sum(weights.values())

    score = by_hand(WEIGHTS)
    assert z_hrv < -2 and z_rhr > 1 and tsb > 10  # rMSSD clipped; rested otherwise
    assert round(score) == 49  # 49.03
    for name in WEIGHTS:  # the figure is sensitive to every weight
        for step in (-0.05, 0.05):
            assert round(by_hand({**WEIGHTS, name: WEIGHTS[name] + step})) != 49
    # The shared hand formula of this file agrees (a check of the check).
    assert _expected(hrv, rhr, 8.2, 84.0, tsb)[0] == pytest.approx(score, abs=1e-9)

    body = _strict((await harness.client.get("/api/training-summary", headers=auth)).text)
    assert body["readiness"] == {"score": 49, "level": "normal"}
    assert abs(body["tsb"] - tsb) <= 0.05 + 1e-9
    assert body["summary"].endswith("readiness 49")
    tool = (await _mcp(harness, auth, "get_training_summary", {}))["structuredContent"]
    assert tool["readiness"] == body["readiness"] and tool["tsb"] == body["tsb"]
