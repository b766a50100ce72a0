"""Deterministic synthetic athletes, activities and 1 Hz streams for the sandbox.

Everything derives from the athlete id (and the day), so every run, process and test
sees the same data. The physiology is simple but coherent: power follows a structured
workout, speed follows power and gradient, heart rate follows power through a
first-order lag (tau ~ 30 s) with slow cardiac drift, cadence stays in a plausible band
and drops to 0 when coasting, altitude is a smooth function of distance, and GPS is
integrated from speed along a slowly turning heading.

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
    return SandboxAthlete(
        id=athlete_id,
        firstname=rng.choice(_FIRST),
        lastname=rng.choice(_LAST),
        sex=sex,
        weight_kg=weight,
        ftp=int(weight * rng.uniform(2.8, 4.2)),
        max_hr=rng.randint(176, 198),
        rest_hr=rng.randint(44, 58),
        threshold_speed=round(rng.uniform(3.4, 4.6), 2),
        city=city,
        home=(lat + rng.uniform(-0.05, 0.05), lng + rng.uniform(-0.05, 0.05)),
        created_at=datetime(2019, 1, 1, tzinfo=UTC) + timedelta(days=rng.randint(0, 900)),
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
    minutes = rng.randint(40, 110) if sport == "Ride" else rng.randint(25, 65)
    start = datetime.combine(day, datetime.min.time(), UTC) + timedelta(
        hours=rng.randint(6, 17), minutes=rng.choice((0, 15, 30, 45))
    )
    label = rng.choice(("Morning", "Lunch", "Evening")) if sport == "Ride" else "Easy"
    kind = rng.choice(("Tempo", "Intervals", "Endurance"))
    return SandboxActivity(
        id=athlete_id * ID_STRIDE + day.toordinal(),
        athlete_id=athlete_id,
        sport=sport,
        name=f"{label} {sport} - {kind}",
        start=start,
        duration_s=minutes * 60,
        trainer=sport == "Ride" and rng.random() < 0.15,
    )


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
    return sorted((a for a, _ in _RECORDED.values() if a.athlete_id == athlete_id),
                  key=lambda a: a.start)


def forget_recorded() -> None:
    _RECORDED.clear()
    summary.cache_clear()


def _altitude(rng_seed: float, d: float) -> float:
    # Two slow sinusoids: rolling terrain with climbs of a few hundred metres at most.
    return 200 + 60 * math.sin(d / 3000 + rng_seed) + 25 * math.sin(d / 700 + 2 * rng_seed)


def _ride_speed(power: float, grade: float, mass: float) -> float:
    """Steady speed for a power on a gradient: bisection on the power balance."""
    lo, hi = 0.5, 25.0
    for _ in range(14):  # 25 / 2**14: about 1.5 mm/s, plenty
        v = (lo + hi) / 2
        resist = (0.004 + grade) * mass * 9.81 * v + 0.5 * 1.2 * 0.32 * v**3
        lo, hi = (v, hi) if resist < power else (lo, v)
    return (lo + hi) / 2


def _target_power(t: int, duration: int, ftp: float, rng: random.Random) -> float:
    if t < 600:  # warm-up ramp
        return ftp * (0.45 + 0.25 * t / 600)
    if t > duration - 480:  # cool-down
        return ftp * 0.5
    block = (t - 600) // 360
    return ftp * (0.95 if block % 2 == 0 else 0.6) + rng.gauss(0, 0.04 * ftp)


def streams(activity_id: int) -> StreamData:
    recorded = _RECORDED.get(activity_id)
    return recorded[1] if recorded is not None else synthetic_streams(activity_id)


@lru_cache(maxsize=128)
def synthetic_streams(activity_id: int) -> StreamData:
    act = activity_by_id(activity_id)
    if act is None:
        raise KeyError(activity_id)
    ath = athlete(act.athlete_id)
    rng = random.Random(f"streams:{activity_id}")  # noqa: S311
    seed = rng.uniform(0, 2 * math.pi)
    ride = act.sport == "Ride"
    mass = ath.weight_kg + (8 if ride else 0)
    lat, lng = ath.home
    heading = rng.uniform(0, 2 * math.pi)
    hr, v, dist, power, target_v = float(ath.rest_hr + 20), 0.0, 0.0, 0.0, 0.0
    out = StreamData([], [], [], [], [], [], [], [], [])
    for t in range(act.duration_s):
        alt = _altitude(seed, dist)
        grade = (_altitude(seed, dist + 5) - alt) / 5
        if ride:
            power = max(0.0, _target_power(t, act.duration_s, ath.ftp, rng))
            if grade < -0.035 and rng.random() < 0.9:
                power = 0.0  # coasting downhill
            if act.trainer:
                target_v = power / 25  # "virtual" speed from power
            elif t % 3 == 0:  # power and grade change slowly: solve every third second
                target_v = _ride_speed(power, grade, mass)
            cadence = 0 if power == 0 else int(88 + 6 * (power / ath.ftp - 0.8) + rng.gauss(0, 2))
        else:
            effort = 0.8 if (t // 300) % 3 else 0.92
            target_v = ath.threshold_speed * effort * (1 - 4 * max(grade, -0.05))
            power = 1.04 * ath.weight_kg * v * (1 + 3 * grade)  # running power, W
            cadence = int(86 + 4 * (v - 3) + rng.gauss(0, 1))  # Strava: strides per minute
        v += (target_v - v) * 0.2  # inertia
        dist += v
        intensity = min(1.2, max(0.0, power / ath.ftp if ride else v / ath.threshold_speed))
        drift = 4 * t / 3600  # cardiac drift, bpm per hour
        target_hr = ath.rest_hr + (ath.max_hr - ath.rest_hr) * (0.3 + 0.6 * intensity) + drift
        hr += (target_hr - hr) / 30  # first-order lag, tau = 30 s
        heading += rng.gauss(0, 0.01)
        if not act.trainer:
            lat += v * math.cos(heading) / 111_320
            lng += v * math.sin(heading) / (111_320 * math.cos(math.radians(lat)))
        out.time.append(t)
        out.distance.append(round(dist, 1))
        out.latlng.append([round(lat, 6), round(lng, 6)])
        out.altitude.append(round(alt, 1))
        out.velocity.append(round(v, 2))
        out.heartrate.append(round(min(hr, ath.max_hr)))
        out.watts.append(round(max(power, 0.0)))
        out.cadence.append(max(cadence, 0))
        out.grade.append(round(grade * 100, 1))
    return out


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
