"""Deterministic daily wellness data (steps, resting HR, HRV, sleep, intraday HR)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from . import _generator as gen


@dataclass(frozen=True, slots=True)
class Daily:
    steps: int
    distance_km: float
    calories_out: int
    activity_calories: int
    bmr_calories: int
    resting_hr: int
    avg_hr: int
    floors: int
    lightly_min: int
    fairly_min: int
    very_min: int
    sedentary_min: int
    rmssd: float


@dataclass(frozen=True, slots=True)
class Sleep:
    log_id: int
    start: datetime
    end: datetime
    deep_min: int
    light_min: int
    rem_min: int
    wake_min: int

    @property
    def duration_s(self) -> int:
        return int((self.end - self.start).total_seconds())

    @property
    def asleep_min(self) -> int:
        return self.deep_min + self.light_min + self.rem_min

    @property
    def efficiency(self) -> int:
        return round(100 * self.asleep_min / (self.duration_s / 60))


@lru_cache(maxsize=2048)
def daily(athlete_id: int, day: date) -> Daily:
    a = gen.athlete(athlete_id)
    rng = random.Random(f"daily:{athlete_id}:{day.toordinal()}")  # noqa: S311
    act = gen.activity_on(athlete_id, day)
    yesterday = gen.activity_on(athlete_id, day - timedelta(days=1))
    # Hard days lower tomorrow's HRV and nudge resting HR up: a visible, simple signal.
    load = (yesterday.duration_s / 3600) if yesterday else 0.0
    steps = rng.randint(4000, 11000)
    act_kcal = 0
    very = rng.randint(0, 10)
    if act is not None:
        minutes = act.duration_s // 60
        very += minutes
        if act.sport == "Run":
            steps += minutes * 170
        act_kcal = round(gen.summary(act.id).calories)
    bmr = round(22 * a.weight_kg + 500)
    lightly, fairly = rng.randint(120, 240), rng.randint(5, 30)
    return Daily(
        steps=steps,
        distance_km=round(steps * 0.00075, 2),
        calories_out=bmr + act_kcal + steps // 25,
        activity_calories=act_kcal + steps // 25,
        bmr_calories=bmr,
        resting_hr=a.rest_hr + round(load * 2) + rng.randint(-2, 2),
        avg_hr=a.rest_hr + 18 + rng.randint(-3, 3),
        floors=rng.randint(2, 20),
        lightly_min=lightly,
        fairly_min=fairly,
        very_min=very,
        sedentary_min=1440 - lightly - fairly - very - 450,
        rmssd=round(max(15.0, 70 - a.rest_hr * 0.4 - load * 8 + rng.gauss(0, 4)), 1),
    )


@lru_cache(maxsize=2048)
def sleep(athlete_id: int, day: date) -> Sleep:
    """The night that ends on the morning of ``day``."""
    rng = random.Random(f"sleep:{athlete_id}:{day.toordinal()}")  # noqa: S311
    evening = datetime.combine(day - timedelta(days=1), datetime.min.time(), UTC)
    start = evening + timedelta(hours=22, minutes=30 + rng.randint(0, 75))
    total = rng.randint(390, 510)
    deep = round(total * rng.uniform(0.13, 0.2))
    rem = round(total * rng.uniform(0.18, 0.25))
    wake = round(total * rng.uniform(0.04, 0.1))
    return Sleep(
        log_id=athlete_id * gen.ID_STRIDE + day.toordinal() + 5_000_000_000_000,
        start=start,
        end=start + timedelta(minutes=total),
        deep_min=deep,
        light_min=total - deep - rem - wake,
        rem_min=rem,
        wake_min=wake,
    )


def intraday_hr(athlete_id: int, day: date, step_s: int = 10) -> list[tuple[int, int]]:
    """(second of day, bpm): every ``step_s`` at rest, every second during the workout."""
    a = gen.athlete(athlete_id)
    rng = random.Random(f"hr:{athlete_id}:{day.toordinal()}")  # noqa: S311
    act = gen.activity_on(athlete_id, day)
    if act is not None:
        t0 = int((act.start - datetime.combine(day, datetime.min.time(), UTC)).total_seconds())
        workout = gen.streams(act.id).heartrate
    else:
        t0, workout = -1, []
    samples: list[tuple[int, int]] = []
    second = 0
    while second < 86_400:
        if act is not None and t0 <= second < t0 + len(workout):
            samples.append((second, workout[second - t0]))
            second += 1
            continue
        asleep = second < 6.5 * 3600 or second > 23 * 3600
        base = a.rest_hr + (2 if asleep else 20)
        samples.append((second, base + rng.randint(-3, 3)))
        second += step_s
    return samples
