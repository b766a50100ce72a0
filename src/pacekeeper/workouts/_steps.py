"""A structured workout's shape: its validation and what is derived from its steps (PLAN-1).

Pure functions over the JSON shape every part shares (the service, the HTTP routes, the
MCP tools and the file exporters of ``_export_*``)::

    workout = {"name", "sport", "steps": [step | repeat], "description"?}
    step    = {"kind", "end": {"time_s"} | {"distance_m"} | {"lap_press": true},
               "target"?: {"type", "low", "high"}, "note"?}
    repeat  = {"repeat": n >= 1, "steps": [step, ...]}      (one level)

A ``%`` target (``ftp_pct``, ``lthr_pct``, ``pace_pct``) needs the sport's threshold,
which ``Thresholds`` carries (the fitness side's per-sport settings, ``for_sport``); a
workout that names one without it is refused, as its watts, beats or pace would be
unknown.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pacekeeper.errors import ValidationFailed
from pacekeeper.values import number as _number

# The workout's sport as the shape names it; the first three have thresholds of their own.
SPORT_NAMES: tuple[str, ...] = ("cycling", "running", "swimming", "walk", "hike", "row",
                                "ski", "strength", "yoga", "workout", "other")
# The stored activity sports' names of the same (an activity's sport; thresholds' key).
ALIASES: dict[str, str] = {"ride": "cycling", "run": "running", "swim": "swimming"}
STORED_SPORT: dict[str, str] = {v: k for k, v in ALIASES.items()}
KINDS: tuple[str, ...] = ("warmup", "active", "recovery", "cooldown", "rest")
TARGETS: tuple[str, ...] = ("ftp_pct", "watts", "lthr_pct", "bpm", "pace", "pace_pct", "rpe")
# Bounds of a target's numbers: wide enough for any real session, narrow enough that a
# typo (a pace of 5 meaning 5 min) is refused rather than planned.
_TARGET_RANGE: dict[str, tuple[float, float]] = {
    "ftp_pct": (1, 300), "watts": (1, 3000), "lthr_pct": (1, 150), "bpm": (30, 250),
    "pace": (20, 3600), "pace_pct": (1, 300), "rpe": (1, 10)}
MAX_STEPS = 100  # steps in all, repeats' steps counted once each
MAX_STEP_S = 24 * 3600
MAX_STEP_M = 1_000_000.0
MAX_REPEAT = 100
MAX_NAME = 200
MAX_TEXT = 2000

# Planned load from RPE: TSS per hour at each RPE of the 1-10 scale (the table
# TrainingPeaks publishes for estimating TSS from perceived effort); a range's mid is
# interpolated linearly between the whole numbers.
RPE_TSS_PER_HOUR: tuple[float, ...] = (20, 30, 40, 50, 60, 70, 80, 100, 120, 140)


def stored_sport(sport: str) -> str:
    """The activity sport a workout's sport is matched with (``cycling`` -> ``ride``)."""
    return STORED_SPORT.get(sport, sport)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """One sport's thresholds on the workout's day: FTP (W), LTHR (bpm), threshold pace
    in seconds per km (per 100 m for swimming, the unit the ``pace`` target uses)."""

    ftp_watts: float | None = None
    lthr_bpm: float | None = None
    pace_s: float | None = None

    @classmethod
    def from_settings(cls, values: Mapping[str, Any], sport: str) -> Thresholds:
        """From ``for_sport``'s generic names for ``sport`` (the workout's name)."""
        pace = values.get("threshold_pace_s_per_100m" if sport == "swimming"
                          else "threshold_pace_s_per_km" if sport == "running" else "")
        return cls(values.get("ftp_watts"), values.get("lthr_bpm"), pace)


class WorkoutInvalid(ValidationFailed):
    """400 (-32602 over MCP): the workout's shape, naming the first bad part."""


def _fail(where: str, what: str) -> WorkoutInvalid:
    return WorkoutInvalid(f"{where}: {what}" if where else what)


def _text(data: Mapping[str, Any], name: str, where: str, limit: int, *, required: bool
          ) -> str | None:
    value = data.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _fail(where, f"{name} must be a non-empty string")
    if len(value) > limit:
        raise _fail(where, f"{name} must be at most {limit} characters")
    return value.strip()


def check_sport(value: Any) -> str:
    name = ALIASES.get(value, value) if isinstance(value, str) else value
    if name not in SPORT_NAMES:
        raise WorkoutInvalid(f"sport must be one of {', '.join(SPORT_NAMES)}")
    assert isinstance(name, str)
    return name


def check_workout(data: Any, thresholds: Thresholds | None) -> dict[str, Any]:
    """The workout in its normal form (unknown keys refused, the sport's ``ride`` /
    ``run`` / ``swim`` named ``cycling`` / ``running`` / ``swimming``), or
    ``WorkoutInvalid`` naming the first bad part by its path (``steps[2].end``).
    ``thresholds`` None checks the shape alone (the file renderers, which say themselves
    what a format needs); given, a % target without its threshold is refused too."""
    if not isinstance(data, Mapping):
        raise WorkoutInvalid("a workout is a JSON object")
    extra = set(data) - {"name", "sport", "steps", "description"}
    if extra:
        raise WorkoutInvalid(f"unknown field {sorted(extra)[0]!r}")
    name = _text(data, "name", "", MAX_NAME, required=True)
    sport = check_sport(data.get("sport"))
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise WorkoutInvalid("steps must be a non-empty list")
    out: dict[str, Any] = {"name": name, "sport": sport,
                           "steps": [_item(s, f"steps[{i}]", sport, thresholds)
                                     for i, s in enumerate(steps)]}
    count = sum(len(s["steps"]) if "repeat" in s else 1 for s in out["steps"])
    if count > MAX_STEPS:
        raise WorkoutInvalid(f"at most {MAX_STEPS} steps in a workout")
    description = _text(data, "description", "", MAX_TEXT, required=False)
    if description is not None:
        out["description"] = description
    return out


def _item(data: Any, where: str, sport: str, thresholds: Thresholds | None
          ) -> dict[str, Any]:
    if isinstance(data, Mapping) and "repeat" in data:
        extra = set(data) - {"repeat", "steps"}
        if extra:
            raise _fail(where, f"unknown field {sorted(extra)[0]!r}")
        times = data["repeat"]
        if isinstance(times, bool) or not isinstance(times, int) or not (
                1 <= times <= MAX_REPEAT):
            raise _fail(where, f"repeat must be a whole number from 1 to {MAX_REPEAT}")
        inner = data.get("steps")
        if not isinstance(inner, list) or not inner:
            raise _fail(where, "a repeat's steps must be a non-empty list")
        return {"repeat": times, "steps": [_step(s, f"{where}.steps[{i}]", sport, thresholds)
                                           for i, s in enumerate(inner)]}
    return _step(data, where, sport, thresholds)


def _step(data: Any, where: str, sport: str, thresholds: Thresholds | None
          ) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise _fail(where, "a step is a JSON object")
    if "repeat" in data:  # only reached inside a repeat
        raise _fail(where, "a repeat cannot hold another repeat")
    extra = set(data) - {"kind", "end", "target", "note"}
    if extra:
        raise _fail(where, f"unknown field {sorted(extra)[0]!r}")
    kind = data.get("kind")
    if kind not in KINDS:
        raise _fail(where, f"kind must be one of {', '.join(KINDS)}")
    out: dict[str, Any] = {"kind": kind, "end": _end(data.get("end"), where)}
    if data.get("target") is not None:
        out["target"] = _target(data["target"], f"{where}.target", sport, thresholds)
    note = _text(data, "note", where, MAX_TEXT, required=False)
    if note is not None:
        out["note"] = note
    return out


def _end(data: Any, where: str) -> dict[str, Any]:
    ways = "time_s, distance_m or lap_press"
    if data is None:
        raise _fail(where, f"a step needs an end: {ways}")
    if not isinstance(data, Mapping) or len(data) != 1:
        raise _fail(where, f"end must be one of {ways}")
    (key, value), = data.items()
    if key == "time_s":
        if isinstance(value, bool) or not isinstance(value, int) or not (
                0 < value <= MAX_STEP_S):
            raise _fail(where, f"end.time_s must be whole seconds from 1 to {MAX_STEP_S}")
        return {"time_s": value}
    if key == "distance_m":
        number = _number(value)
        if number is None or not 0 < number <= MAX_STEP_M:
            raise _fail(where, f"end.distance_m must be a number above 0, at most "
                        f"{MAX_STEP_M:g}")
        return {"distance_m": value}
    if key == "lap_press":
        if value is not True:
            raise _fail(where, "end.lap_press must be true")
        return {"lap_press": True}
    raise _fail(where, f"end must be one of {ways}")


def _target(data: Any, where: str, sport: str, thresholds: Thresholds | None
            ) -> dict[str, Any]:
    if not isinstance(data, Mapping) or set(data) != {"type", "low", "high"}:
        raise _fail(where, "a target is {type, low, high}")
    kind = data["type"]
    if kind not in TARGETS:
        raise _fail(where, f"type must be one of {', '.join(TARGETS)}")
    low, high = _number(data["low"]), _number(data["high"])
    bottom, top = _TARGET_RANGE[kind]
    if low is None or high is None or not bottom <= low <= high <= top:
        raise _fail(where, f"low and high must be numbers with {bottom:g} <= low <= high "
                    f"<= {top:g} for {kind}")
    if kind in ("pace", "pace_pct") and sport not in ("running", "swimming"):
        raise _fail(where, f"{kind} targets are for running and swimming")
    missing = None if thresholds is None else {
        "ftp_pct": ("ftp_watts", thresholds.ftp_watts),
        "lthr_pct": ("lthr_bpm", thresholds.lthr_bpm),
        "pace_pct": ("a threshold pace", thresholds.pace_s)}.get(kind)
    if missing is not None and missing[1] is None:
        setting = missing[0]
        if kind == "pace_pct":
            setting = ("swim_threshold_pace_s_per_100m" if sport == "swimming"
                       else "threshold_pace_s_per_km")
        raise _fail(where, f"{kind} needs the {sport} threshold: set {setting} first "
                    "(update_athlete_settings or PATCH /api/athlete)")
    return {"type": kind, "low": data["low"], "high": data["high"]}


def flat_steps(steps: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], int]]:
    """Each step with the number of times it is done (a repeat's steps ``repeat`` times)."""
    for item in steps:
        if "repeat" in item:
            for step in item["steps"]:
                yield step, item["repeat"]
        else:
            yield item, 1


def target_speed(step: Mapping[str, Any], sport: str, thresholds: Thresholds
                 ) -> float | None:
    """The step's planned speed in m/s, from its pace target: a ``pace`` range's mid
    (seconds per km, per 100 m for swimming), or a ``pace_pct`` range's mid percent of the
    threshold speed; None for any other target or none."""
    target = step.get("target")
    if not target:
        return None
    mid = (float(target["low"]) + float(target["high"])) / 2
    unit_m = 100.0 if sport == "swimming" else 1000.0
    if target["type"] == "pace":
        return unit_m / mid
    if target["type"] == "pace_pct" and thresholds.pace_s:
        return unit_m / thresholds.pace_s * mid / 100
    return None


def step_seconds(step: Mapping[str, Any], sport: str, thresholds: Thresholds) -> float | None:
    """A step's planned time: its ``time_s``; a distance step's metres over its target
    speed (``target_speed``); None for a lap press or a distance without a pace."""
    end = step["end"]
    if "time_s" in end:
        return float(end["time_s"])
    speed = target_speed(step, sport, thresholds)
    if "distance_m" in end and speed:
        return float(end["distance_m"]) / speed
    return None


def step_metres(step: Mapping[str, Any], sport: str, thresholds: Thresholds) -> float | None:
    """A step's planned distance: its ``distance_m``; a time step's seconds times its
    target speed; None otherwise."""
    end = step["end"]
    if "distance_m" in end:
        return float(end["distance_m"])
    speed = target_speed(step, sport, thresholds)
    if "time_s" in end and speed:
        return float(end["time_s"]) * speed
    return None


def step_intensity(step: Mapping[str, Any], sport: str, thresholds: Thresholds
                   ) -> tuple[str, float] | None:
    """(method, IF) of a step's target, IF from the range's mid:

    - ``ftp_pct``: IF = mid / 100; ``watts``: IF = mid / FTP (TSS, Coggan);
    - ``lthr_pct``: IF = mid / 100; ``bpm``: IF = mid / LTHR (hrTSS: LTHR taken as the
      heart rate at FTP, TrainingPeaks' hrTSS);
    - ``pace``: IF = threshold pace / target pace; ``pace_pct``: IF = mid / 100 (the
      target speed over threshold speed; rTSS, as ``running_tss``);
    - ``rpe``: ``("rpe", tss_per_hour)``, interpolated in ``RPE_TSS_PER_HOUR``.

    None without a target, or when the threshold the target needs is not set."""
    target = step.get("target")
    if not target:
        return None
    kind = target["type"]
    mid = (float(target["low"]) + float(target["high"])) / 2
    if kind == "rpe":
        i = min(int(mid), 9)
        below = RPE_TSS_PER_HOUR[i - 1]
        above = RPE_TSS_PER_HOUR[min(i, 9)]
        return "rpe", below + (above - below) * (mid - i)
    if kind in ("ftp_pct", "lthr_pct", "pace_pct"):
        method = {"ftp_pct": "tss", "lthr_pct": "hrtss", "pace_pct": "rtss"}[kind]
        return method, mid / 100
    reference = {"watts": thresholds.ftp_watts, "bpm": thresholds.lthr_bpm}.get(kind)
    if kind == "pace":
        return (None if not thresholds.pace_s else ("rtss", thresholds.pace_s / mid))
    if not reference:
        return None
    return ("tss" if kind == "watts" else "hrtss"), mid / reference


def derive(workout: Mapping[str, Any], thresholds: Thresholds) -> dict[str, Any]:
    """The planned figures of a (checked) workout:

    - ``duration_s``: the sum of every step's time (``step_seconds``) times its repeats;
      None when any step's time is unknown (a lap press, a distance without a pace);
    - ``distance_m``: the same sum of ``step_metres``; None when any is unknown;
    - ``load``: the sum over steps of hours x IF^2 x 100 (``step_intensity``; for RPE
      hours x the table's TSS per hour), over the steps whose time and intensity are
      known; None when none is; ``load_complete`` False when some step's is not (a
      warm-up without a target);
    - ``load_method``: ``tss``, ``hrtss``, ``rtss``, ``rpe`` or ``mixed``."""
    sport = workout["sport"]
    seconds: float | None = 0.0
    metres: float | None = 0.0
    load, complete, methods = 0.0, True, set[str]()
    for step, times in flat_steps(workout["steps"]):
        s = step_seconds(step, sport, thresholds)
        m = step_metres(step, sport, thresholds)
        seconds = None if seconds is None or s is None else seconds + s * times
        metres = None if metres is None or m is None else metres + m * times
        intensity = step_intensity(step, sport, thresholds)
        if s is None or intensity is None:
            complete = False
            continue
        method, value = intensity
        methods.add(method)
        hours = s * times / 3600
        load += hours * value if method == "rpe" else hours * value * value * 100
    named: str | None = (None if not methods else next(iter(methods)) if len(methods) == 1
                         else "mixed")
    return {"duration_s": None if seconds is None else round(seconds),
            "distance_m": None if metres is None else round(metres, 1),
            "load": round(load, 1) if methods else None, "load_method": named,
            "load_complete": complete and bool(methods)}


__all__ = ["ALIASES", "KINDS", "RPE_TSS_PER_HOUR", "SPORT_NAMES", "TARGETS", "Thresholds",
           "WorkoutInvalid", "check_sport", "check_workout", "derive", "flat_steps",
           "step_intensity", "step_metres", "step_seconds", "stored_sport", "target_speed"]
