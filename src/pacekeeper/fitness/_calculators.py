"""Pure calculators behind predict_race_time, get_training_paces and calculate_zones (and
their HTTP twins): the engine called directly, inputs checked, results rounded."""

from __future__ import annotations

import math
from typing import Any, Literal, NotRequired

from typing_extensions import TypedDict

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import FitnessInputError
from pacekeeper.fitness._figures import clock as hms
from pacekeeper.fitness._figures import run_pace_unit
from pacekeeper.fitness.analysis._results import Prediction, RacePrediction, TrainingPaces, Zones

STANDARD_RACES = {"5km": 5000.0, "10km": 10000.0, "half_marathon": 21097.5,
                  "marathon": 42195.0}


def _race(distance_m: float, time_s: float) -> float:
    if not 800 <= distance_m <= 100_000:
        raise FitnessInputError("distance_m must be between 800 and 100000")
    if not 60 <= time_s <= 86_400:
        raise FitnessInputError("time_s must be between 60 and 86400")
    speed = distance_m / time_s
    if not 1.0 <= speed <= 11.0:
        raise FitnessInputError("that race is not a running pace (1-11 m/s)")
    vdot = an.vdot_from_race(distance_m, time_s)
    if not 15 <= vdot <= 90:
        raise FitnessInputError(f"that race gives VDOT {vdot:.1f}, outside 15-90 where "
                                "Daniels' tables hold")
    return vdot


def predict_race(distance_m: float, time_s: float, targets: list[float],
                 units: str = "metric") -> RacePrediction:
    """Daniels-Gilbert VDOT equivalents and Riegel (T2 = T1 (D2/D1)^1.06) for each target,
    each with its pace per km (per mile in imperial ``units``)."""
    vdot = _race(distance_m, time_s)
    per, unit = run_pace_unit(units)
    if not targets:
        targets = list(STANDARD_RACES.values())
    for t in targets:
        if not 800 <= t <= 100_000:
            raise FitnessInputError("target_distance_m must be between 800 and 100000")
    predictions: list[Prediction] = []
    for target in targets:
        methods: tuple[tuple[Literal["vdot", "riegel"], float], ...] = (
            ("vdot", an.race_time_for_vdot(vdot, target)),
            ("riegel", an.riegel(time_s, distance_m, target)))
        for method, seconds in methods:
            # Full precision: the tool rounds by unit (_figures.rounded_answer) once;
            # a tenth first turned 11480.55 s into 11480.5, then 11480.
            one: Prediction = {"method": method, "distance_m": target,
                               "time_s": seconds, "time": hms(seconds)}
            if unit == "mi":
                one["pace_s_per_mi"] = seconds / target * per
            else:
                one["pace_s_per_km"] = seconds / target * per
            predictions.append(one)
    # One prediction per distance: Daniels' (the one every answer gives); Riegel's
    # formula beside it, named, as a second opinion.
    first = {p["method"]: p["time"] for p in predictions if p["distance_m"] == targets[0]}
    return {"summary": f"{distance_m / 1000:g} km in {hms(time_s)} = VDOT {vdot:.1f}; "
                       f"{targets[0] / 1000:g} km in {first['vdot']} (Daniels VDOT; "
                       f"Riegel's formula: {first['riegel']})",
            "vdot": round(vdot, 1), "distance_m": distance_m, "time_s": time_s,
            "predictions": predictions}


def training_paces(vdot: float | None, distance_m: float | None, time_s: float | None,
                   units: str = "metric") -> TrainingPaces:
    """Daniels E/M/T/I/R paces for a VDOT, or for the VDOT of a race, per km (per mile in
    imperial ``units``; R also per 400 m, a track's lap in either)."""
    if vdot is None:
        if distance_m is None or time_s is None:
            raise FitnessInputError("give vdot, or distance_m and time_s of a race")
        vdot = _race(distance_m, time_s)
    elif not 15 <= vdot <= 90:
        raise FitnessInputError("vdot must be between 15 and 90")
    p = an.training_paces(vdot)
    per, unit = run_pace_unit(units)
    scale = per / 1000.0  # the engine's paces are per km
    paces = {k: v * scale for k, v in (
        ("easy_fast", p.easy_fast), ("easy_slow", p.easy_slow), ("marathon", p.marathon),
        ("threshold", p.threshold), ("interval", p.interval), ("repetition", p.repetition))}
    text = {k: f"{hms(v)}/{unit}" for k, v in paces.items()}
    out: TrainingPaces = {
        "summary": f"VDOT {vdot:.1f}: E {text['easy_fast']}-{text['easy_slow']}, "
                   f"M {text['marathon']}, T {text['threshold']}, I {text['interval']}, "
                   f"R {hms(p.r_per_400m)}/400 m",
        "vdot": round(vdot, 1), "paces": text, "repetition_per_400m_s": round(p.r_per_400m)}
    if unit == "mi":
        out["paces_s_per_mi"] = {k: round(v) for k, v in paces.items()}
    else:
        out["paces_s_per_km"] = {k: round(v) for k, v in paces.items()}
    return out


def _first_whole(bound: float, digits: int) -> float:
    """The first value shown with ``digits`` decimals that lies at or above ``bound``:
    a zone holds ``bound <= value < next bound`` (``analytics.time_in_zones``), so with
    262.5 W as a bound 262 W is in the lower zone and 263 W the upper one's first. Half
    to even (``round``) showed 262 as the upper zone's start. The 1e-9 keeps a bound that
    is whole but for float error (250 x 0.9) whole."""
    scale = 10.0**digits
    return math.ceil(bound * scale - 1e-9) / scale


def _bands(bounds: list[float], names: list[str], unit: str, digits: int = 0
           ) -> list[dict[str, Any]]:
    """Each zone as ``low <= value < high`` in whole units (``high`` None: no top)."""
    out = []
    for i, low in enumerate(bounds):
        high = bounds[i + 1] if i + 1 < len(bounds) else None
        out.append({"zone": names[i], "low": _first_whole(low, digits),
                    "high": None if high is None else _first_whole(high, digits),
                    "unit": unit})
    return out


POWER_NAMES = ["1 active recovery", "2 endurance", "3 tempo", "4 threshold", "5 VO2max",
               "6 anaerobic", "7 neuromuscular"]
FRIEL_HR_NAMES = ["1 recovery", "2 aerobic", "3 tempo", "4 sub-threshold",
                  "5a super-threshold", "5b aerobic capacity", "5c anaerobic"]
FIVE_NAMES = ["1", "2", "3", "4", "5"]
PACE_NAMES = FRIEL_HR_NAMES


class ZoneBands(TypedDict):
    """What the zones answer says before its summary (written last, from what was given)."""

    settings: dict[str, Any]
    power: NotRequired[list[dict[str, Any]]]
    heart_rate: NotRequired[list[dict[str, Any]]]
    heart_rate_run: NotRequired[list[dict[str, Any]]]
    pace: NotRequired[list[dict[str, Any]]]


def zones(settings: dict[str, Any], units: str = "metric") -> Zones:
    """Power (Coggan, % FTP), heart rate (Friel % LTHR, cycling's and running's sets, else
    Karvonen, else % max) and pace (Friel, % threshold pace; per km, per mile in imperial
    ``units``) zones from whichever settings are given."""
    out: ZoneBands = {"settings": settings}
    ftp = settings.get("ftp_watts")
    lthr, top, rest = (settings.get(k) for k in ("lthr_bpm", "max_hr_bpm", "resting_hr_bpm"))
    pace = settings.get("threshold_pace_s_per_km")
    parts = []
    if ftp:
        out["power"] = _bands([float(x) for x in an.power_zones(ftp)], POWER_NAMES, "W")
        parts.append(f"power from FTP {ftp} W")
    if lthr:
        out["heart_rate"] = _bands([float(x) for x in an.lthr_zones(lthr)], FRIEL_HR_NAMES,
                                   "bpm")
        out["heart_rate_run"] = _bands(
            [float(x) for x in an.lthr_zones(lthr, an.FRIEL_LTHR_RUN_ZONES)], FRIEL_HR_NAMES,
            "bpm")
        parts.append(f"HR from LTHR {lthr} (cycling; running: heart_rate_run)")
    elif top and rest:
        if rest >= top:
            raise FitnessInputError("resting_hr_bpm must be below max_hr_bpm")
        out["heart_rate"] = _bands([float(x) for x in an.karvonen_zones(rest, top)],
                                   FIVE_NAMES, "bpm")
        parts.append(f"HR Karvonen {rest}-{top}")
    elif top:
        out["heart_rate"] = _bands([float(x) for x in an.max_hr_zones(top)], FIVE_NAMES, "bpm")
        parts.append(f"HR from max {top}")
    if pace:
        speeds = [float(x) for x in an.pace_zones(pace)]
        per, unit = run_pace_unit(units)
        rows = []
        for i, low in enumerate(speeds):
            high = speeds[i + 1] if i + 1 < len(speeds) else math.inf
            rows.append({"zone": PACE_NAMES[i],
                         f"slowest_s_per_{unit}": None if low == 0 else round(per / low),
                         f"fastest_s_per_{unit}": None if math.isinf(high)
                         else round(per / high), "unit": f"s/{unit}"})
        out["pace"] = rows
        parts.append(f"pace from threshold {hms(pace * per / 1000)}/{unit}")
    summary = ("zones: " + "; ".join(parts)) if parts else (
        "no zones: give (or set) ftp_watts, lthr_bpm, max_hr_bpm (with resting_hr_bpm) or "
        "threshold_pace_s_per_km")
    return {**out, "summary": summary}  # the summary last, as the zones were found


__all__ = ["STANDARD_RACES", "hms", "predict_race", "training_paces", "zones"]
