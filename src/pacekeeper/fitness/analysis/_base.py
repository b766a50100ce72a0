"""The one base of the analysis parts: the store, the clock, the person's today, periods,
the PMC and the period queries every part reads."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, timedelta
from typing import Any

import numpy as np

from pacekeeper.fitness import _inputs
from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import FitnessInputError
from pacekeeper.fitness._records import DailyHealth, Owner, PeriodRow
from pacekeeper.fitness._settings import SettingsHistory, day_in, zone_of
from pacekeeper.fitness._store import SqlFitnessStore
from pacekeeper.fitness._views import daily_json
from pacekeeper.fitness.analysis._common import (
    _CURVE_KEY,
    ATL_DAYS,
    CTL_DAYS,
    MAX_DAYS,
    RUN_SPORTS,
    WHERE_DAYS,
    Clock,
    CurveKind,
    _midnight,
    _r,
    aligned,
    local_day,
    moving_seconds,
    possible_efforts,
)
from pacekeeper.fitness.analytics._types import FloatArray


class AnalysisBase:
    def __init__(self, store: SqlFitnessStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    async def locale(self, owner: Owner) -> tuple[str | None, int]:
        """The person's ``time_zone`` setting as valid now (None: not set) and the
        weekday their weeks start on (0 Monday, 6 Sunday)."""
        now = self.clock()
        history = SettingsHistory(await self.store.settings(owner.user_id))
        first = history.on(now.astimezone(UTC).date() + timedelta(days=1)).get(
            "first_day_of_week")
        return zone_of(history, now), 6 if first == "sunday" else 0

    async def week_start(self, owner: Owner, day: date) -> date:
        """The first day of ``day``'s week, as the person's weeks start."""
        _, first = await self.locale(owner)
        return day - timedelta(days=(day.weekday() - first) % 7)

    async def today(self, owner: Owner) -> date:
        """The person's own today: the date in their ``time_zone`` setting; without one,
        at the UTC offset of their latest activity of the last ``WHERE_DAYS`` days (a
        recent activity says where they are), UTC's without one. A UTC date would leave a
        Sydney morning's ride out of "today" (and of the week, the summary and the chart)
        until 10:00 there."""
        now = self.clock().astimezone(UTC)
        zone, _ = await self.locale(owner)
        if zone is not None:
            return day_in(zone, now)
        offset = await self.store.latest_offset(
            owner.user_id, now - timedelta(days=WHERE_DAYS), now, hide=owner.withheld)
        return (now + timedelta(seconds=offset or 0)).date()

    async def units(self, owner: Owner, day: date | None = None) -> str:
        """The person's ``units`` setting on ``day`` (their today by default): ``metric``
        or ``imperial``, which every run pace in an answer follows (min/km or min/mi)."""
        values = SettingsHistory(await self.store.settings(owner.user_id)).on(
            day or await self.today(owner))
        return "imperial" if values.get("units") == "imperial" else "metric"

    async def period(self, owner: Owner, start: str | None, end: str | None,
                     default_days: int) -> tuple[date, date]:
        """Inclusive [from, to] days; ``to`` defaults to the person's today (looked up only
        then), ``from`` to ``default_days`` before it. 400 for a bad date, a reversed or
        too long range."""
        last = _inputs.day(end, "to") or await self.today(owner)
        first = _inputs.day(start, "from") or last - timedelta(days=default_days - 1)
        if last < first:
            raise FitnessInputError("'to' must not be before 'from'")
        if (last - first).days + 1 > MAX_DAYS:
            raise FitnessInputError(f"ask for at most {MAX_DAYS} days at once")
        return first, last

    async def _rows(self, owner: Owner, first: date, last: date, keys: Sequence[str] = (),
                    sport: str | None = None) -> list[PeriodRow]:
        """Activities whose local day is in [first, last] (the UTC range is widened by a
        day each side for the offsets, then filtered by local day)."""
        rows = await self.store.period_rows(
            owner.user_id, _midnight(first - timedelta(days=1)),
            _midnight(last + timedelta(days=2)), keys, sport=sport, hide=owner.withheld)
        return [r for r in rows if first <= local_day(r.start_at, r.utc_offset_s) <= last]

    async def daily_loads(self, owner: Owner, first: date, last: date) -> FloatArray:
        """Sum of activity loads per local day, index 0 = ``first`` (0 on rest days)."""
        n = (last - first).days + 1
        points = await self.store.load_points(
            owner.user_id, _midnight(first - timedelta(days=1)),
            _midnight(last + timedelta(days=2)), hide=owner.withheld)
        if not points:
            return np.zeros(max(n, 0))
        table = np.array(points, dtype=np.float64)  # (local start s, load) per activity
        origin = _midnight(first).timestamp()
        index = np.floor_divide(table[:, 0] - origin, 86400.0).astype(np.int64)
        ok = (index >= 0) & (index < n)
        return np.bincount(index[ok], weights=table[ok, 1], minlength=n).astype(np.float64)

    async def pmc(self, owner: Owner, first: date, last: date, *,
                  ctl_days: int = CTL_DAYS, atl_days: int = ATL_DAYS,
                  planned: Mapping[date, float] | None = None
                  ) -> tuple[FloatArray, an.Pmc]:
        """Daily loads and CTL / ATL / TSB for [first, last], with the given time
        constants (42 and 7 days by default): the one PMC every answer reads.

        The series starts at the person's first activity with a load (CTL and ATL 0
        before it), whatever range is asked: CTL on a day is the same from a chart of a
        week, of a year or from the summary (a start at a fixed warm-up before ``first``
        left older load out, and the same day read 30.5 or 30.4 by range).

        ``planned``: loads added to their days (the plan's, for a projection: issue 32)."""
        origin = await self.store.first_load_start(owner.user_id, hide=owner.withheld)
        start = first
        if origin is not None:  # a day early: its local day may be the UTC day before
            start = min(first, origin.astimezone(UTC).date() - timedelta(days=1))
        k = (first - start).days
        loads = await self.daily_loads(owner, start, last)
        for day, load in (planned or {}).items():
            if start <= day <= last:
                loads[(day - start).days] += load
        chart = an.ctl_atl_tsb(loads, ctl_days, atl_days)
        return loads[k:], an.Pmc(chart.ctl[k:], chart.atl[k:], chart.tsb[k:])

    async def form(self, owner: Owner, day: date) -> tuple[float, float, float]:
        """(CTL, ATL, TSB) on ``day``: CTL and ATL after the day's training, TSB = form
        going into the day = CTL - ATL of the day before (Coggan / TrainingPeaks). Every
        answer that names a day's form (TSB) reads it here."""
        _, p = await self.pmc(owner, day, day)
        return float(p.ctl[-1]), float(p.atl[-1]), float(p.tsb[-1])

    async def recomputing(self, owner: Owner) -> int:
        return await self.store.stale_activities(owner.user_id, hide=owner.withheld)

    async def _health(self, owner: Owner, first: date, last: date
                      ) -> dict[date, dict[str, Any]]:
        """Daily health per day, merged across sources by the one rule the daily
        summaries use (``daily_json``: the first source in name order with a figure), so
        readiness and get_daily_summaries read the same HRV and resting HR for a day."""
        days: list[DailyHealth] = await self.store.daily(owner.user_id, first, last,
                                                           hide=owner.withheld)
        return {date.fromisoformat(e["date"]): e for e in daily_json(days)}

    @staticmethod
    def totals(rows: Sequence[PeriodRow]) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for r in rows:
            t = out.setdefault(r.sport, {"sessions": 0, "moving_hours": 0.0, "km": 0.0,
                                         "load": 0.0})
            t["sessions"] += 1
            t["moving_hours"] += moving_seconds(r) / 3600.0
            t["km"] += (r.distance_m or 0.0) / 1000.0
            t["load"] += r.load or 0.0
        return {s: {"sessions": v["sessions"], "moving_hours": _r(v["moving_hours"], 1),
                    "km": _r(v["km"]), "load": _r(v["load"], 0)}
                for s, v in sorted(out.items())}

    async def period_curve(self, owner: Owner, kind: CurveKind, first: date, last: date,
                           sport: str | None = None) -> FloatArray:
        best, _ = await self._period_curve(owner, kind, first, last, sport)
        return best

    async def _period_curve(self, owner: Owner, kind: CurveKind, first: date, last: date,
                            sport: str | None) -> tuple[FloatArray, list[PeriodRow]]:
        best, rows, _ = await self._period_curves(owner, kind, first, last, sport)
        return best, rows

    async def _period_curves(self, owner: Owner, kind: CurveKind, first: date, last: date,
                             sport: str | None
                             ) -> tuple[FloatArray, list[PeriodRow], FloatArray]:
        """The period's best curve, its activities, and their curves (one row each)."""
        key = _CURVE_KEY[kind]
        rows = await self._rows(owner, first, last, (key, "curve_durations"), sport=sport)
        rows = [r for r in rows if r.metrics.get(key)]
        if not rows:
            empty = np.full(len(an.STANDARD_DURATIONS), np.nan)
            return empty, rows, empty[None, :0]
        curves = np.vstack([aligned(r.metrics[key], r.metrics["curve_durations"])
                            for r in rows])
        return an.merge_curves(*curves), rows, curves

    async def _efforts(self, owner: Owner, first: date, last: date
                       ) -> dict[str, tuple[float, str, str]]:
        """Best time per distance in the period: (seconds, activity id, day)."""
        rows = await self._rows(owner, first, last, ("best_efforts",))
        best: dict[str, tuple[float, str, str]] = {}
        for r in rows:
            if r.sport not in RUN_SPORTS:
                continue
            for name, t in possible_efforts(r.metrics.get("best_efforts")).items():
                if name not in best or t < best[name][0]:
                    best[name] = (float(t), str(r.id),
                                  local_day(r.start_at, r.utc_offset_s).isoformat())
        return best

    @staticmethod
    def _vdot(efforts: dict[str, tuple[float, str, str]]) -> tuple[float, str] | None:
        """The highest VDOT of the period's best efforts of a mile or more (Daniels'
        equations hold from about 1500 m to the marathon)."""
        found = [(an.vdot_from_race(an.BEST_EFFORT_DISTANCES[n], t), n)
                 for n, (t, _, _) in efforts.items()
                 if an.BEST_EFFORT_DISTANCES.get(n, 0) >= 1609]
        return max(found) if found else None



__all__ = ["AnalysisBase"]
