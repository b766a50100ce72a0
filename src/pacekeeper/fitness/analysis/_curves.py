"""Curves: power, heart-rate and pace curves and run best efforts (the tools of
``pacekeeper.tools.curves``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any, Literal, overload

import numpy as np

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._figures import run_pace_unit
from pacekeeper.fitness._records import Owner, PeriodRow
from pacekeeper.fitness.analysis._base import AnalysisBase
from pacekeeper.fitness.analysis._common import (
    _CURVE_KEY,
    _INDEX,
    DEFAULT_CURVE_DURATIONS,
    MAX_DAYS,
    POWER_SPORT,
    CurveKind,
    _activity_uuid,
    _hms,
    _r,
    aligned,
    local_day,
    sport_name,
)
from pacekeeper.fitness.analysis._results import (
    BestEfforts,
    CurveHead,
    HrCurve,
    PaceCurve,
    PacePoint,
    PowerCurve,
    Records,
    Season,
)
from pacekeeper.fitness.analytics._types import FloatArray

SEASONS = 11  # calendar years, this one first: as far back as a period may reach (MAX_DAYS)


class CurveAnalysis(AnalysisBase):
    @staticmethod
    def durations(asked: Sequence[int] | None) -> list[int]:
        if not asked:
            return list(DEFAULT_CURVE_DURATIONS)
        bad = [d for d in asked if d not in _INDEX]
        if bad:
            raise FitnessInputError(
                f"duration {bad[0]} s is not stored; durations are "
                f"{', '.join(str(d) for d in an.STANDARD_DURATIONS)}")
        return sorted(set(asked))

    @overload
    async def curve(self, owner: Owner, kind: Literal["power"], *, activity_id: str | None,
                    start: str | None, end: str | None, durations: Sequence[int] | None,
                    sport: str | None = None) -> PowerCurve: ...
    @overload
    async def curve(self, owner: Owner, kind: Literal["hr"], *, activity_id: str | None,
                    start: str | None, end: str | None, durations: Sequence[int] | None,
                    sport: str | None = None) -> HrCurve: ...
    @overload
    async def curve(self, owner: Owner, kind: Literal["pace"], *, activity_id: str | None,
                    start: str | None, end: str | None, durations: Sequence[int] | None,
                    sport: str | None = None) -> PaceCurve: ...
    async def curve(self, owner: Owner, kind: CurveKind, *, activity_id: str | None,
                    start: str | None, end: str | None, durations: Sequence[int] | None,
                    sport: str | None = None) -> PowerCurve | HrCurve | PaceCurve:
        ds = self.durations(durations)
        key = _CURVE_KEY[kind]
        sources: list[tuple[str, str]] = []
        one: str | None = None  # the activity asked for, else the period's days
        span = ("", "")
        if activity_id:
            if start or end:
                raise FitnessInputError("give activity_id, or from/to, not both")
            found = await self.store.get(owner.user_id, _activity_uuid(activity_id),
                                    hide=owner.withheld)
            if found is None:
                raise ActivityNotFound("no such activity")
            best = aligned(found.metrics.get(key), found.metrics.get("curve_durations"))
            where = f"activity {found.name or found.id}"
            sport = found.sport
            one = str(found.id)
            rows_n = 1
            day = local_day(found.start_at, found.utc_offset_s).isoformat()
            sources = [(str(found.id), day)] * len(an.STANDARD_DURATIONS)
        else:
            first, last = await self.period(owner, start, end, 365)
            sport = sport_name(sport, {"power": POWER_SPORT, "pace": "run", "hr": None}[kind])
            best, rows, curves = await self._period_curves(owner, kind, first, last, sport)
            where = f"{first} to {last}"
            span = (first.isoformat(), last.isoformat())
            rows_n = len(rows)
            sources = self._argbest(rows, curves)
        # (duration, value, activity, day) per duration with a value.
        found_at: list[tuple[int, float, str, str]] = []
        for d in ds:
            v = float(best[_INDEX[d]])
            if math.isfinite(v):
                found_at.append((d, v, *sources[_INDEX[d]]))
        unit = {"power": "W", "hr": "bpm", "pace": "m/s"}[kind]
        digits = 2 if kind == "pace" else 0  # the point's value field's rounding
        text = ", ".join(f"{_hms(d)} {_r(v, digits)}"
                         for d, v, _, _ in found_at if d in (5, 60, 300, 1200, 3600))
        summary = (f"{kind} curve ({sport or 'all sports'}), {where} ({rows_n} activities): "
                   f"{text or 'no data'}" + (f" {unit}" if text else ""))
        head: CurveHead
        if one is not None:
            head = {"summary": summary, "kind": kind, "sport": sport or "all",
                    "activity_id": one, "activities": rows_n}
        else:
            head = {"summary": summary, "kind": kind, "sport": sport or "all",
                    "from": span[0], "to": span[1], "activities": rows_n}
        if kind == "power":
            power: PowerCurve = {**head, "points": [
                {"duration_s": d, "watts": v, "activity_id": a, "date": day}
                for d, v, a, day in found_at]}
            return power
        if kind == "hr":
            hr: HrCurve = {**head, "points": [
                {"duration_s": d, "bpm": v, "activity_id": a, "date": day}
                for d, v, a, day in found_at]}
            return hr
        # Full precision: the tool rounds by unit (_figures.rounded_answer) once; a
        # tenth first read 190.52 W as 190.5, then 190. A swim's pace is per 100 m (in
        # either units), a run's per km or per mile as the person reads it.
        per, unit = run_pace_unit(await self.units(owner))
        points: list[PacePoint] = []
        for d, v, a, day in found_at:
            point: PacePoint = {"duration_s": d, "speed_mps": v, "activity_id": a,
                                "date": day}
            if sport == "swim":
                point["pace_s_per_100m"] = 100.0 / v if v > 0 else None
            elif unit == "mi":
                point["pace_s_per_mi"] = per / v if v > 0 else None
            else:
                point["pace_s_per_km"] = per / v if v > 0 else None
            points.append(point)
        pace: PaceCurve = {**head, "points": points}
        return pace

    @staticmethod
    def _argbest(rows: Sequence[PeriodRow], curves: FloatArray) -> list[tuple[str, str]]:
        """Per duration, the (first) activity whose curve is the period's best there."""
        if not rows:
            return [("", "")] * len(an.STANDARD_DURATIONS)
        filled = np.where(np.isnan(curves), -np.inf, curves)
        winners = np.argmax(filled, axis=0).tolist()
        names = {i: (str(rows[i].id),
                     local_day(rows[i].start_at, rows[i].utc_offset_s).isoformat())
                 for i in set(winners)}
        return [names[i] for i in winners]

    async def best_efforts(self, owner: Owner, start: str | None, end: str | None
                           ) -> BestEfforts:
        first, last = await self.period(owner, start, end, 365)
        efforts = await self._efforts(owner, first, last)
        per, unit = run_pace_unit(await self.units(owner))
        out: list[dict[str, Any]] = []
        for name, meters in an.BEST_EFFORT_DISTANCES.items():
            if name not in efforts:
                continue
            t, aid, day = efforts[name]
            out.append({"distance": name, "distance_m": meters, "time_s": _r(t, 0),
                        "time": _hms(t), f"pace_s_per_{unit}": _r(t / meters * per, 0),
                        "vdot": _r(an.vdot_from_race(meters, t), 1) if meters >= 1609 else None,
                        "activity_id": aid, "date": day})
        vdot = self._vdot(efforts)
        head = ", ".join(f"{e['distance']} {e['time']}" for e in out
                         if e["distance"] in ("1km", "5km", "10km", "half_marathon"))
        return {"summary": f"best efforts {first} to {last}: {head or 'none'}"
                           + (f"; VDOT {vdot[0]:.1f} ({vdot[1]})" if vdot else ""),
                "from": first.isoformat(), "to": last.isoformat(),
                "vdot": _r(vdot[0], 1) if vdot else None, "efforts": out}


    async def records(self, owner: Owner) -> Records:
        """The Records page's one answer (issue 33): run best efforts over the longest
        period the analysis takes and per season (a calendar year, this one up to today),
        and each season's power curve; a season with neither is left out. The figures are
        get_best_efforts' and get_power_curve's for the same ranges (the page asked for
        each in turn: 23 requests a load)."""
        last = await self.today(owner)
        first = last - timedelta(days=MAX_DAYS - 1)
        all_time = await self.best_efforts(owner, first.isoformat(), last.isoformat())
        seasons: list[Season] = []
        for year in range(last.year, last.year - SEASONS, -1):
            start = max(first, date(year, 1, 1)).isoformat()
            end = min(last, date(year, 12, 31)).isoformat()
            efforts = await self.best_efforts(owner, start, end)
            power = await self.curve(owner, "power", activity_id=None, start=start, end=end,
                                     durations=None)
            if efforts["efforts"] or power["points"]:
                seasons.append({"season": year, "best_efforts": efforts, "power": power})
        return {"summary": f"records {first} to {last}: {len(seasons)} seasons with runs "
                           "or power",
                "from": first.isoformat(), "to": last.isoformat(), "all_time": all_time,
                "seasons": seasons}


__all__ = ["SEASONS", "CurveAnalysis"]
