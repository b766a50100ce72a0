"""Issue 27 item 14: every figure in a tool answer carries its unit in its name (or in the
name of the field that holds it, for a table keyed by zone, duration or sport), and is
rounded to what the measurement supports (no ``154.51358708295328`` bpm).

One vocabulary for both checks, documented in docs/fitness.md ("Units in answers"): a
figure's name ends in a unit suffix, which says how many decimals it may carry, or is one
of the unitless quantities listed there."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from tests.pacekeeper.conftest import Harness
from tests.pacekeeper.fitness._activity_files import raw
from tests.pacekeeper.fitness.test_analysis import STD, _mcp, _person, _store, _today
from tests.pacekeeper.fitness.test_one_answer import _tools

# Unit suffix -> the most decimals a figure of that unit may carry (longest suffix first
# when matching). The same table is docs/fitness.md's ("Units in answers").
UNITS: dict[str, int] = {
    "_bpm": 0, "_w": 0, "_watts": 0, "_w_per_kg": 2, "_j": 0, "_kj": 0, "_kcal": 0,
    "_m": 1, "_km": 2, "_mi": 2, "_s": 1, "_ms": 1, "_min": 1, "_h": 1, "_hours": 1,
    "_days": 0, "_weeks": 1, "_mps": 2, "_kmh": 1, "_mph": 1, "_s_per_km": 0,
    "_s_per_mi": 0, "_s_per_100m": 0, "_s_per_500m": 0, "_rpm": 0, "_spm": 0,
    "_per_min": 0, "_kg": 1, "_pct": 1, "_ml_per_kg_min": 1, "_c": 0, "_mm": 0,
    "_deg": 6,
}
# A name that is its unit (a curve point's "watts", a period's "km").
BARE = {"bpm": 0, "watts": 0, "seconds": 0, "km": 2}
# A name that begins with its unit ("weeks_left", "days_since_hard_session").
LEADING = {"weeks_": 1, "days_": 0}
# Unitless quantities (TSS points, model outputs, ratios, counts, scores) -> decimals,
# matched as a whole word of the name ("ctl", "acute_load_7d", "hr_tss").
UNITLESS: dict[str, int] = {
    "ctl": 1, "atl": 1, "tsb": 1, "tss": 1, "rtss": 1, "load": 1, "trimp": 1,
    "intensity_factor": 2, "vdot": 1, "vo2max": 1, "acwr": 2, "monotony": 2, "strain": 0,
    "ramp": 1, "ramp_rate": 1, "r_squared": 3, "p_value": 3, "score_points": 1, "score": 0, "share": 3,
    "z": 2, "weight": 2, "efficiency_factor": 2, "variability_index": 2,
    "polarization_index": 2, "training_effect": 1, "swolf": 0,
}
# Names whose figure is a count or an index (whole numbers only).
COUNTS = re.compile(r"^(activities|sessions|points|recomputing|weeks|days|laps|zone|"
                    r"samples|zones|readiness|lengths|count|active_weeks)$|_count$|^n_|^num_"
                    r"|^total_(cycles|strides|strokes)$")
_SUFFIXES = sorted(UNITS, key=len, reverse=True)


def unit_of(name: str) -> int | None:
    """Decimals the name's unit allows, None when the name carries no unit. A rate per
    week is its quantity's unit per week (one decimal more: a slope is small)."""
    if name.endswith("_per_week"):
        base = unit_of(name.removesuffix("_per_week"))
        return None if base is None else base + 1
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            return UNITS[suffix]
    if name in BARE:
        return BARE[name]
    for lead, places in LEADING.items():
        if name.startswith(lead):
            return places
    for quantity, places in UNITLESS.items():
        if re.search(rf"(^|_){quantity}(_|$)", name):
            return places
    if COUNTS.search(name):
        return 0
    return None


def _decimals(value: float) -> int:
    if value.is_integer():
        return 0  # 250.0 is as whole as 250
    text = repr(value)
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def walk(node: Any, path: str, key: str, parent: str,
         bad_unit: list[str], bad_round: list[str]) -> None:
    """Every numeric leaf: its name (or, in a table keyed by data, its table's name) says
    its unit, and a float has no more decimals than that unit supports."""
    if isinstance(node, dict):
        # A unit beside the figures: {"name": "hrv", "unit": "ms", "value": 46.7}, or
        # {"streams": {...}, "units": {"heartrate": "bpm"}}.
        beside = node.get("unit")
        units = node.get("units") if isinstance(node.get("units"), dict) else {}
        for k, v in node.items():
            if units and isinstance(v, dict):  # the table the map names (streams)
                for c, x in v.items():
                    walk(x, f"{path}.{k}.{c}", f"{c}_{units[c].lower()}" if c in units
                         else str(c), str(k), bad_unit, bad_round)
                continue
            own = units.get(k) or (beside if isinstance(beside, str) and unit_of(str(k))
                                   is None else None)
            walk(v, f"{path}.{k}", f"{k}_{own.lower()}" if own else str(k),
                 f"{key}_{own.lower()}" if own else key, bad_unit, bad_round)
        return
    if isinstance(node, list):
        for i, v in enumerate(node):
            walk(v, f"{path}[{i}]", key, parent, bad_unit, bad_round)
        return
    if isinstance(node, bool) or not isinstance(node, (int, float)):
        return
    places = unit_of(key)
    if places is None:
        places = unit_of(parent)  # a table keyed by zone / duration / sport names its unit
    if places is None:
        bad_unit.append(f"{path}={node!r}")
        return
    if isinstance(node, float) and _decimals(node) > places:
        bad_round.append(f"{path}={node!r} (at most {places})")


async def _seed(h: Harness) -> tuple[dict[str, str], dict[str, Any]]:
    """A person with real activities (a ride with power and HR, runs, a pool swim, moved
    into the last weeks), 120 days of stored rides and runs with curves, efforts and zone
    times, daily HRV and resting HR, thresholds and a race goal."""
    from pacekeeper.fitness._records import DailyHealth
    from pacekeeper.fitness._tables import ActivityRow

    auth, owner = await _person(h, "answer-units@example.com")
    await h.client.patch("/api/athlete", headers=auth, json={
        "ftp_watts": 240, "lthr_bpm": 168, "max_hr_bpm": 188, "weight_kg": 71.3,
        "threshold_pace_s_per_km": 265, "valid_from": "2000-01-01"})
    today = _today(h)
    real: dict[str, str] = {}
    for sport, name in (("ride", "corpus/garmin-edge-820-bike.fit"),
                        ("run", "corpus/garmin-fenix-5-run.fit"),
                        ("trainer", "fit/sample-activity-indoor-trainer.fit"),
                        ("swim", "corpus/garmin-fenix6-swim.fit")):
        got = await h.client.post("/api/activities/import", headers=auth,
                                  files={"file": (name.rsplit("/", 1)[-1], raw(name))})
        assert got.status_code == 201, (name, got.text)
        real[sport] = got.json()["activity"]["id"]
    async with h.services.fitness.store._sessions() as session, session.begin():
        for k, ident in enumerate(real.values()):  # into the last days: default periods
            start = datetime.combine(today - timedelta(days=k + 1), datetime.min.time(),
                                     UTC) + timedelta(hours=8)
            await session.execute(update(ActivityRow).where(
                ActivityRow.id == uuid.UUID(ident)).values(start_at=start))
    items = []
    for k in range(4, 120):
        if k % 7 == 3:
            continue
        run = k % 3 == 0
        start = datetime.combine(today - timedelta(days=k), datetime.min.time(),
                                 UTC) + timedelta(hours=7)
        curve = ({"speed_curve": [5.2 - d ** 0.2 / 7.3 for d in STD if d <= 3600]} if run
                 else {"power_curve": [260.0 + 2000.0 / d ** 0.9 for d in STD if d <= 3600]})
        items.append({"start": start, "sport": "run" if run else "ride",
                      "distance": 10000.0 + 37.3 * k if run else 30000.0 + 91.7 * k,
                      "elapsed": 3600.0 + 13.7 * k, "metrics": {
                          "load": 40.0 + 7.31 * (k % 11), "tss": 40.0 + 7.31 * (k % 11),
                          "curve_durations": [d for d in STD if d <= 3600],
                          "hr_curve": [182.0 - d ** 0.3 / 3.1 for d in STD if d <= 3600],
                          **curve,
                          "best_efforts": {"1mile": 401.3 + k % 5, "5km": 1290.7 + k % 7,
                                           "10km": 2611.9 + k % 9} if run else {},
                          "time_in_power_zones": [600.0, 900, 700, 400, 200, 100, 50],
                          "time_in_hr_zones": [500.0, 1200, 900, 500, 300, 100, 100]}})
    await _store(h, owner, items)
    health = [DailyHealth(today - timedelta(days=k), "garmin",
                          hrv_rmssd_ms=48.0 + (k % 9) * 1.37, resting_hr=51.0 + k % 4,
                          sleep_s=25200.0 + 97 * k, sleep_score=70.0 + k % 20,
                          weight_kg=71.3 + k % 3 * 0.1)
              for k in range(60)]
    await h.services.fitness.store.upsert_daily(owner, health, h.clock())
    goal = await _mcp(h, auth, "set_goal", {
        "kind": "race", "distance_m": 10000, "time_s": 2500,
        "date": (today + timedelta(days=60)).isoformat()})
    values = {"activity_id": real["ride"], "activity_ids": list(real.values()),
              "goal_id": goal["structuredContent"]["goal"]["id"], "vdot": 50.3,
              "kind": "power", "distance_m": 10000, "time_s": 2611.9}
    return auth, {"values": values, "real": real}


async def _answers(h: Harness) -> dict[str, Any]:
    """Every read tool's structuredContent (several for tools that take an activity, a
    sport or a kind: each real activity, each sport)."""
    auth, seeded = await _seed(h)
    values, real = seeded["values"], seeded["real"]
    out: dict[str, Any] = {}
    for tool in await _tools(h, auth):
        if not tool.get("annotations", {}).get("readOnlyHint"):
            continue
        schema = tool["inputSchema"]
        props, required = schema.get("properties", {}), schema.get("required", [])
        if any(p not in values for p in required):
            continue
        base = {p: values[p] for p in required}
        variants: dict[str, dict[str, Any]] = {"": base}
        if "activity_id" in props:
            variants = {sport: {**base, "activity_id": ident}
                        for sport, ident in real.items()}
        if "sport" in props:
            variants.update({f"sport={s}": {**base, "sport": s} for s in ("run", "swim")})
        if "kind" in props:
            variants.update({f"kind={k}": {**base, "kind": k} for k in ("hr", "pace")})
        for label, args in variants.items():
            result = await _mcp(h, auth, tool["name"], args)
            if result.get("isError") or "structuredContent" not in result:
                continue
            out[f"{tool['name']}({label})"] = result["structuredContent"]
    return out


async def test_every_figure_in_every_answer_says_its_unit_and_is_rounded(
        harness: Harness) -> None:
    """Every read tool for a person with real activities: every numeric leaf's name ends
    in a unit of the vocabulary (or is a listed unitless quantity), and no float carries
    more decimals than its unit supports."""
    answers = await _answers(harness)
    assert len(answers) >= 30, sorted(answers)
    bad_unit: list[str] = []
    bad_round: list[str] = []
    for name, answer in answers.items():
        walk(answer, name, "", "", bad_unit, bad_round)
    # One line per field (a list's items and the tools' variants counted together).
    fields: dict[str, int] = {}
    for line in bad_unit + bad_round:
        field = re.sub(r"\[\d+\]", "[]", re.sub(r"\(.*?\)", "", line).split("=")[0])
        fields[field] = fields.get(field, 0) + 1
    assert not bad_unit and not bad_round, (
        f"{len(bad_unit)} figures without a unit, {len(bad_round)} over-precise, "
        f"{len(fields)} fields:\n" + "\n".join(f"{n:5d} {f}" for f, n in sorted(
            fields.items())))


async def test_a_runs_pace_per_the_persons_units_a_swims_per_100m(harness: Harness) -> None:
    """A run's speeds are its pace, per km or per mile as the person's ``units`` setting
    says; a swim's pace is per 100 m; a ride's speeds are km/h: never km/h for a run."""
    h = harness
    auth, seeded = await _seed(h)
    real = seeded["real"]

    async def peaks(ident: str) -> dict[str, Any]:
        answer = await _mcp(h, auth, "analyze_activity", {"activity_id": ident})
        found: dict[str, Any] = answer["structuredContent"]["peaks"]
        return found

    per_km = {k: v for k, v in (await peaks(real["run"])).items() if k.startswith("pace_")}
    assert per_km and all(k.endswith("_s_per_km") for k in per_km), per_km
    ride = [k for k in await peaks(real["ride"]) if k.startswith("speed_")]
    assert ride and all(k.endswith("_kmh") for k in ride), ride
    saved = await h.client.patch("/api/athlete", headers=auth, json={
        "units": "imperial", "valid_from": "2000-01-01"})
    assert saved.status_code == 200, saved.text
    per_mi = {k: v for k, v in (await peaks(real["run"])).items() if k.startswith("pace_")}
    assert per_mi.keys() == {k.replace("_km", "_mi") for k in per_km}
    for key, seconds in per_km.items():  # the same speed, a mile's time
        assert abs(per_mi[key.replace("_km", "_mi")] - seconds * 1.609344) <= 1.0, key
    swim = await _mcp(h, auth, "get_pace_curve", {"activity_id": real["swim"]})
    points = swim["structuredContent"]["points"]
    assert points and all("pace_s_per_100m" in p and "pace_s_per_km" not in p
                          for p in points), points
