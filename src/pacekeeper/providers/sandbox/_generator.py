"""Deterministic synthetic athletes, activities and 1 Hz streams for the sandbox.

Everything derives from the athlete id (and the day), so every run, process and test
sees the same data. Each athlete has a physiology (``_physiology``: an OmPD power- and
speed-duration curve after Puccinelli et al. 2018, thresholds per sport, heart-rate
kinetics) and each session a plan (``_sessions``: endurance, tempo, VO2max intervals,
sprints, tests...) whose targets come from that physiology. Speed follows power and
gradient on a ride, running power follows speed, mass and gradient (Minetti 2002), heart
rate follows intensity through a first-order lag (tau 25-45 s) with cardiac drift,
cadence stays in a plausible band and drops to 0 when coasting, altitude is a smooth
function of distance, and GPS is integrated from speed along a slowly turning heading.

An athlete's history can also hold rides recorded by a real device (``record``: a FIT file
"uploaded" to the sandbox account, see ``_recorded``). Such a ride takes its day's place
in every provider's history, with its own start, duration and samples, and stays in the
account however far back it lies (it is the athlete's data, not generated history).
Recorded rides live in this process, like the sandbox's grants.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

import numpy as np

from . import _sessions as ses
from ._physiology import Physiology, hr_response, physiology_for, running_power, steady_state_hr

ID_STRIDE = 10_000_000  # activity id = athlete id * stride + day ordinal
_FIRST = ("Alex", "Sam", "Robin", "Kim", "Jo", "Maria", "Lena", "Tomas", "Ines", "Kai")
_LAST = ("Berg", "Moreau", "Okafor", "Lindqvist", "Rossi", "Tanaka", "Novak", "Silva")
_CITIES = (("Boulder", 40.015, -105.27), ("Girona", 41.98, 2.82), ("Nice", 43.70, 7.26))


@dataclass(frozen=True, slots=True)
class SandboxAthlete:
    id: int
    firstname: str
    lastname: str
    sex: str
    weight_kg: float
    ftp: int
    max_hr: int
    rest_hr: int
    threshold_speed: float  # running, m/s
    city: str
    home: tuple[float, float]
    created_at: datetime
    physiology: Physiology  # the curves and thresholds above come from it


@dataclass(frozen=True, slots=True)
class SandboxActivity:
    id: int
    athlete_id: int
    sport: str  # Strava sport type: "Ride" or "Run"
    name: str
    start: datetime
    duration_s: int
    trainer: bool


@lru_cache(maxsize=256)
def athlete(athlete_id: int) -> SandboxAthlete:
    if athlete_id < 1 or athlete_id >= 10_000_000:
        raise KeyError(athlete_id)
    rng = random.Random(f"athlete:{athlete_id}")  # noqa: S311 - synthetic data, not secrets
    sex = rng.choice(("M", "F"))
    weight = round(rng.uniform(58, 82) if sex == "M" else rng.uniform(50, 70), 1)
    city, lat, lng = rng.choice(_CITIES)
    # The draws keep their old order so that names, homes and FTPs stay those of before.
    firstname, lastname = rng.choice(_FIRST), rng.choice(_LAST)
    ftp_wkg = rng.uniform(2.8, 4.2)
    max_hr, rest_hr = rng.randint(176, 198), rng.randint(44, 58)
    rng.uniform(3.4, 4.6)  # was the running threshold speed: now from the physiology
    phys = physiology_for(athlete_id, sex, weight, ftp_wkg, max_hr, rest_hr)
    return SandboxAthlete(
        id=athlete_id,
        firstname=firstname,
        lastname=lastname,
        sex=sex,
        weight_kg=weight,
        ftp=int(phys.ftp),
        max_hr=max_hr,
        rest_hr=rest_hr,
        threshold_speed=round(phys.run_threshold_speed, 2),
        city=city,
        home=(lat + rng.uniform(-0.05, 0.05), lng + rng.uniform(-0.05, 0.05)),
        created_at=datetime(2019, 1, 1, tzinfo=UTC) + timedelta(days=rng.randint(0, 900)),
        physiology=phys,
    )


def activity_on(athlete_id: int, day: date) -> SandboxActivity | None:
    """The athlete's activity on ``day``, if they trained that day (about 4 days in 7)."""
    recorded = _RECORDED.get(athlete_id * ID_STRIDE + day.toordinal())
    if recorded is not None:
        return recorded[0]
    rng = random.Random(f"day:{athlete_id}:{day.toordinal()}")  # noqa: S311
    if rng.random() > 0.6:
        return None
    sport = "Ride" if rng.random() < 0.6 else "Run"
    # The draws keep their old order so that days, sports and start times stay those of
    # before; the session's length and content come from its plan (its own seed).
    rng.randint(40, 110) if sport == "Ride" else rng.randint(25, 65)
    start = datetime.combine(day, datetime.min.time(), UTC) + timedelta(
        hours=rng.randint(6, 17), minutes=rng.choice((0, 15, 30, 45))
    )
    if sport == "Ride":
        rng.choice(("Morning", "Lunch", "Evening"))  # was the name's label
    rng.choice(("Tempo", "Intervals", "Endurance"))  # was the session's kind
    label = "Morning" if start.hour < 11 else "Lunch" if start.hour < 14 else "Evening"
    act_id = athlete_id * ID_STRIDE + day.toordinal()
    plan = plan_of(act_id, sport)
    return SandboxActivity(
        id=act_id,
        athlete_id=athlete_id,
        sport=sport,
        name=f"{label} {sport} - {plan.kind}",
        start=start,
        duration_s=plan.seconds,
        trainer=sport == "Ride" and rng.random() < 0.15,
    )


@lru_cache(maxsize=1024)
def plan_of(activity_id: int, sport: str) -> ses.Plan:
    """The session a synthetic activity follows (its own seed, so streams can rebuild it).

    Every sixth week is a test week: its rides are sprints, a 5- or 20-minute test or an
    hour time trial in turn, so a few months of history reach every part of the curve."""
    ordinal = activity_id % ID_STRIDE
    rng = random.Random(f"plan:{activity_id}")  # noqa: S311
    if sport == "Ride":
        test_week = (ordinal // 7) % 6 == 5
        kind = ses.trial_kind(ordinal) if test_week else ses.pick(ses.RIDE_KINDS, rng)
        return ses.ride_plan(kind, rng.randint(40, 110), rng)
    return ses.run_plan(ses.pick(ses.RUN_KINDS, rng), rng.randint(30, 65), rng)


def activity_by_id(activity_id: int) -> SandboxActivity | None:
    athlete_id, ordinal = divmod(activity_id, ID_STRIDE)
    if athlete_id < 1 or ordinal < 1:
        return None
    return activity_on(athlete_id, date.fromordinal(ordinal))


def activities_between(athlete_id: int, first: date, last: date) -> list[SandboxActivity]:
    """Activities with a start day in ``[first, last]``, oldest first."""
    found = []
    for ordinal in range(first.toordinal(), last.toordinal() + 1):
        act = activity_on(athlete_id, date.fromordinal(ordinal))
        if act is not None:
            found.append(act)
    return found


@dataclass(frozen=True, slots=True)
class StreamData:
    time: list[int]
    distance: list[float]
    latlng: list[list[float]]
    altitude: list[float]
    velocity: list[float]
    heartrate: list[int]
    watts: list[int]
    cadence: list[int]
    grade: list[float]
    # Fields a recorded ride's device did not measure (their lists hold zeros): the
    # providers leave them out, as they do for a real recording.
    absent: frozenset[str] = frozenset()


# Recorded rides by activity id (athlete id * stride + the day's ordinal).
_RECORDED: dict[int, tuple[SandboxActivity, StreamData]] = {}


def record(activity: SandboxActivity, data: StreamData) -> None:
    """Put a recorded ride into its athlete's history, in place of that day's activity."""
    if activity.id != activity.athlete_id * ID_STRIDE + activity.start.date().toordinal():
        raise ValueError("a recorded activity's id is its athlete's and its day's")
    _RECORDED[activity.id] = (activity, data)
    summary.cache_clear()  # the day's summary may be the synthetic one's


def recorded_of(athlete_id: int) -> list[SandboxActivity]:
    """The athlete's recorded rides, oldest first."""
    return sorted(
        (a for a, _ in _RECORDED.values() if a.athlete_id == athlete_id), key=lambda a: a.start
    )


def forget_recorded() -> None:
    _RECORDED.clear()
    summary.cache_clear()


def _altitude(rng_seed: float, d: float, hills: float = 1.0) -> float:
    # Two slow sinusoids: rolling terrain with climbs of a few hundred metres at most.
    rolling = 60 * math.sin(d / 3000 + rng_seed) + 25 * math.sin(d / 700 + 2 * rng_seed)
    return 200 + hills * rolling


def _ride_speed(power: float, grade: float, mass: float) -> float:
    """Steady speed for a power on a gradient: bisection on the power balance."""
    lo, hi = 0.5, 25.0
    for _ in range(14):  # 25 / 2**14: about 1.5 mm/s, plenty
        v = (lo + hi) / 2
        resist = (0.004 + grade) * mass * 9.81 * v + 0.5 * 1.2 * 0.32 * v**3
        lo, hi = (v, hi) if resist < power else (lo, v)
    return (lo + hi) / 2


def streams(activity_id: int) -> StreamData:
    recorded = _RECORDED.get(activity_id)
    return recorded[1] if recorded is not None else synthetic_streams(activity_id)


@lru_cache(maxsize=128)
def synthetic_streams(activity_id: int) -> StreamData:
    act = activity_by_id(activity_id)
    if act is None:
        raise KeyError(activity_id)
    ath = athlete(act.athlete_id)
    phys = ath.physiology
    rng = random.Random(f"streams:{activity_id}")  # noqa: S311
    seed = rng.uniform(0, 2 * math.pi)
    ride = act.sport == "Ride"
    plan = plan_of(activity_id, act.sport)
    curve, threshold = (phys.ride, phys.ftp) if ride else (phys.run, phys.run_threshold_speed)
    target, work = ses.targets(plan, curve, threshold, rng)
    mass = ath.weight_kg + (8 if ride else 0)
    hills = 0.1 if plan.kind in ("Intervals", "Reps") else 1.0  # on a track or a flat loop
    lat, lng = ath.home
    heading = rng.uniform(0, 2 * math.pi)
    v, dist, target_v = 0.0, 0.0, 0.0
    n = act.duration_s
    watts, speeds, alts, grades = np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n)
    out = StreamData([], [], [], [], [], [], [], [], [])
    coast = [rng.random() < 0.9 for _ in range(n)] if ride and not act.trainer else [False] * n
    for t in range(n):
        alt = _altitude(seed, dist, hills)
        grade = (_altitude(seed, dist + 5, hills) - alt) / 5
        if ride:
            power = float(target[t])
            if grade < -0.035 and coast[t] and not work[t]:
                power = 0.0  # coasting downhill, outside the work bouts
            if act.trainer:
                target_v = power / 25  # "virtual" speed from power
            elif t % 3 == 0:  # power and grade change slowly: solve every third second
                target_v = _ride_speed(power, grade, mass)
            v += (target_v - v) * 0.2  # a bike's inertia
        else:
            # A runner holds pace on a slope better than constant effort would (Minetti's
            # C(0) / C(i)): half of that slowing, none of the speed-up past 3 % downhill.
            scale = min(1.03, max(0.85, math.sqrt(3.6 / _minetti(grade))))
            target_v = float(target[t]) * scale
            v += (target_v - v) * 0.5  # a runner accelerates faster than a bike
            power = float(running_power(v, ath.weight_kg, grade))
        dist += v
        watts[t], speeds[t], alts[t], grades[t] = power, v, alt, grade
        heading += rng.gauss(0, 0.01)
        if not act.trainer:
            lat += v * math.cos(heading) / 111_320
            lng += v * math.sin(heading) / (111_320 * math.cos(math.radians(lat)))
        out.latlng.append([round(lat, 6), round(lng, 6)])
    # Heart rate from the effort actually produced (coasting included): intensity is
    # output over the sport's hour threshold, plus drift growing with time and effort.
    x = watts / phys.ftp if ride else speeds / phys.run_threshold_speed
    lthr, max_hr = (phys.lthr_ride, phys.max_hr_ride) if ride else (phys.lthr_run, phys.max_hr_run)
    drift = phys.drift_bpm_per_h * np.arange(n) / 3600 * np.minimum(x, 1.2)
    goal = steady_state_hr(x, ath.rest_hr, lthr, max_hr) + drift
    hr = np.minimum(hr_response(goal, ath.rest_hr + 20, phys.hr_tau_s), max_hr)
    out.time.extend(range(n))
    out.distance.extend(np.round(np.cumsum(speeds), 1).tolist())
    out.altitude.extend(np.round(alts, 1).tolist())
    out.velocity.extend(np.round(speeds, 2).tolist())
    out.heartrate.extend(int(h) for h in np.round(hr))
    out.watts.extend(int(w) for w in np.round(watts))
    out.grade.extend(np.round(grades * 100, 1).tolist())
    out.cadence.extend(_cadence(ride, watts, speeds, phys.ftp, rng))
    return out


def _minetti(grade: float) -> float:
    # Scalar Minetti et al. (2002) cost, J/kg/m (the vectorised one is _physiology's).
    i = min(0.45, max(-0.45, grade))
    return 155.4 * i**5 - 30.4 * i**4 - 43.3 * i**3 + 46.3 * i**2 + 19.5 * i + 3.6


def _cadence(
    ride: bool, watts: np.ndarray, speeds: np.ndarray, ftp: float, rng: random.Random
) -> list[int]:
    """Pedal rpm (0 when coasting, 70-110 otherwise) or strides per minute (as Strava
    counts them: 75-98, rising with speed)."""
    noise = np.random.default_rng(rng.getrandbits(64)).standard_normal(len(watts))
    if ride:
        rpm = np.clip(88 + 6 * (watts / ftp - 0.8) + 2 * noise, 70, 110)
        return [0 if w < 0.5 else int(c) for w, c in zip(watts.tolist(), rpm.tolist(), strict=True)]
    spm = np.clip(86 + 4 * (speeds - 3) + noise, 75, 98)
    return [int(c) for c in spm.tolist()]


@dataclass(frozen=True, slots=True)
class Summary:
    distance: float
    moving_time: int
    elevation_gain: float
    average_speed: float
    max_speed: float
    average_heartrate: float
    max_heartrate: int
    average_watts: float
    max_watts: int
    weighted_average_watts: int
    kilojoules: float
    average_cadence: float
    calories: float


@lru_cache(maxsize=1024)
def summary(activity_id: int) -> Summary:
    """Totals computed from the streams themselves, so summary and streams agree."""
    s = streams(activity_id)
    n = len(s.time)
    gain = sum(max(0.0, b - a) for a, b in zip(s.altitude, s.altitude[1:], strict=False))
    rolling = [sum(s.watts[i : i + 30]) / 30 for i in range(0, max(1, n - 30), 30)]
    np_watts = (sum(p**4 for p in rolling) / len(rolling)) ** 0.25 if rolling else 0.0
    kj = sum(s.watts) / 1000
    pedalling = [c for c in s.cadence if c > 0]
    return Summary(
        distance=s.distance[-1],
        moving_time=sum(1 for v in s.velocity if v > 0.5),
        elevation_gain=round(gain, 1),
        average_speed=round(s.distance[-1] / n, 3),
        max_speed=max(s.velocity),
        average_heartrate=round(sum(s.heartrate) / n, 1),
        max_heartrate=max(s.heartrate),
        average_watts=round(sum(s.watts) / n, 1),
        max_watts=max(s.watts),
        weighted_average_watts=int(np_watts),
        kilojoules=round(kj, 1),
        average_cadence=round(sum(pedalling) / len(pedalling), 1) if pedalling else 0.0,
        calories=round(kj * 1.05, 1),  # ~24% gross efficiency: kcal ~ kJ
    )
