"""Activities and periods compared, and patterns over weeks (the tools of
``pacekeeper.tools.compare``); patterns read the zone distribution."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any, Final, Literal

import numpy as np

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._figures import METRIC_NAMES, SPEED_METRICS, speed_figure
from pacekeeper.fitness._records import Owner
from pacekeeper.fitness.analysis._common import (
    _CURVE_KEY,
    _INDEX,
    POWER_SPORT,
    _activity_uuid,
    _hms,
    _r,
    aligned,
    local_day,
    moving_seconds,
    possible_efforts,
)
from pacekeeper.fitness.analysis._physiology import PhysiologyAnalysis
from pacekeeper.fitness.analysis._results import (
    ActivityAnalysis,
    ActivityComparison,
    Patterns,
    PeriodComparison,
    PeriodFigures,
    PeriodStats,
)


class CompareAnalysis(PhysiologyAnalysis):
    _HEAD: Final = ("normalized_power", "intensity_factor", "tss", "load", "load_method",
                    "variability_index", "efficiency_factor", "aerobic_decoupling_pct",
                    "avg_power", "avg_hr", "max_hr", "work_kj", "trimp", "hr_tss", "rtss",
                    "normalized_graded_speed")

    async def analyze(self, owner: Owner, activity_id: str) -> ActivityAnalysis:
        found = await self.store.get(owner.user_id, _activity_uuid(activity_id),
                                    hide=owner.withheld)
        if found is None:
            raise ActivityNotFound("no such activity")
        m = found.metrics
        day = local_day(found.start_at, found.utc_offset_s)
        units = await self.units(owner, day)  # a run's pace per km or per mile
        # Named with their units (rounded by those at the tool: _figures.rounded_answer).
        metrics: dict[str, Any] = {}
        for k in self._HEAD:
            value = m.get(k)
            if value is None:
                continue
            figure = speed_figure(found.sport, k, value, units) if k in SPEED_METRICS else (
                METRIC_NAMES.get(k, k), value)
            if figure is not None:
                metrics[figure[0]] = figure[1]
        zones: dict[str, Any] = {}
        for kind, key in (("power", "time_in_power_zones"), ("hr", "time_in_hr_zones"),
                          ("pace", "time_in_pace_zones")):
            if m.get(key):
                zones[kind] = [_r(s, 0) for s in m[key]]
        peaks: dict[str, Any] = {}
        for kind, unit in (("power", "_w"), ("hr", "_bpm"), ("pace", "")):
            c = aligned(m.get(_CURVE_KEY[kind]), m.get("curve_durations"))
            for d in (5, 60, 300, 1200, 3600):
                if not math.isfinite(c[_INDEX[d]]):
                    continue
                best = float(c[_INDEX[d]])
                figure = (speed_figure(found.sport, f"speed_{d}s", best, units)
                          if kind == "pace"
                          else (f"{kind}_{d}s{unit}", best))
                if figure is not None:
                    peaks[figure[0]] = figure[1]
        ftp = None
        if m.get("power_zone_bounds"):
            ftp = _r(m["power_zone_bounds"][1] / an.COGGAN_POWER_ZONES[1], 0)
        stale = await self.recomputing(owner)
        head = [f"{found.sport} {day}", f"{(found.distance_m or 0) / 1000:.1f} km",
                _hms(moving_seconds(found)) + " moving"]
        if m.get("load") is not None:
            head.append(f"load {m['load']:.0f} ({m.get('load_method')})")
        if m.get("normalized_power") is not None:
            head.append(f"NP {m['normalized_power']:.0f} W")
        if m.get("intensity_factor") is not None:
            head.append(f"IF {m['intensity_factor']:.2f}")
        if m.get("aerobic_decoupling_pct") is not None:
            head.append(f"decoupling {m['aerobic_decoupling_pct']:.1f} %")
        return {"summary": ", ".join(head) + (" (being recomputed)" if stale else ""),
                "activity_id": str(found.id), "name": found.name, "sport": found.sport,
                "date": day.isoformat(), "elapsed_s": _r(found.elapsed_s, 0),
                "moving_s": _r(found.moving_s, 0), "distance_m": _r(found.distance_m, 0),
                "metrics": metrics, "time_in_zones_s": zones, "peaks": peaks,
                "ftp_used_watts": ftp,
                "best_efforts_s": possible_efforts(m.get("best_efforts")),
                "recomputing": stale}

    async def compare_activities(self, owner: Owner, ids: Sequence[str]
                                 ) -> ActivityComparison:
        if not 2 <= len(ids) <= 5:
            raise FitnessInputError("compare 2 to 5 activities")
        items = [await self.analyze(owner, i) for i in ids]
        keys = sorted(set().union(*(it["metrics"] for it in items)) - {"load_method"})
        table = {k: [it["metrics"].get(k) for it in items] for k in keys}
        peak_keys = sorted(set().union(*(it["peaks"] for it in items)))
        peaks = {k: [it["peaks"].get(k) for it in items] for k in peak_keys}
        loads = [it["metrics"].get("load") for it in items]
        summary = "; ".join(f"{it['date']} {it['sport']} load "
                            f"{'?' if ld is None else round(ld)}" for it, ld in zip(items, loads,
                                                                                    strict=True))
        return {"summary": summary,
                "activities": [{"activity_id": it["activity_id"], "name": it["name"],
                                "sport": it["sport"], "date": it["date"],
                                "elapsed_s": it["elapsed_s"], "moving_s": it["moving_s"],
                                "distance_m": it["distance_m"]} for it in items],
                "metrics": table, "peaks": peaks}

    async def period_stats(self, owner: Owner, first: date, last: date) -> PeriodFigures:
        rows = await self._rows(owner, first, last)
        loads, p = await self.pmc(owner, first, last)
        best = await self.period_curve(owner, "power", first, last, POWER_SPORT)
        totals = self.totals(rows)
        return {
            "from": first.isoformat(), "to": last.isoformat(), "activities": len(rows),
            "moving_hours": _r(sum(moving_seconds(r) for r in rows) / 3600.0, 1),
            "elapsed_hours": _r(sum(r.elapsed_s for r in rows) / 3600.0, 1),
            "km": _r(sum((r.distance_m or 0.0) for r in rows) / 1000.0, 1),
            "load": _r(float(loads.sum()), 0),
            "load_per_week": _r(float(loads.sum()) / len(loads) * 7.0, 0),
            "mean_ctl": _r(float(p.ctl.mean()), 1), "end_ctl": _r(float(p.ctl[-1]), 1),
            "power_5min_w": _r(float(best[_INDEX[300]]), 0),
            "power_20min_w": _r(float(best[_INDEX[1200]]), 0),
            "by_sport": totals,
        }

    async def period_summary(self, owner: Owner, start: str | None, end: str | None
                             ) -> PeriodStats:
        first, last = await self.period(owner, start, end, 28)
        stats = await self.period_stats(owner, first, last)
        return {"summary": f"{first} to {last}: {stats['activities']} activities, "
                           f"{stats['moving_hours']} h moving ({stats['elapsed_hours']} h "
                           f"elapsed), {stats['km']} km, load {stats['load']}",
                **stats}

    async def compare_periods(self, owner: Owner, a: tuple[str | None, str | None],
                              b: tuple[str | None, str | None]) -> PeriodComparison:
        a1, a2 = await self.period(owner, a[0], a[1], 28)
        b1, b2 = await self.period(owner, b[0], b[1], 28)
        # Plain dicts: the answer's "a" and "b" are open objects, read here by name.
        pa: dict[str, Any] = {**await self.period_stats(owner, a1, a2)}
        pb: dict[str, Any] = {**await self.period_stats(owner, b1, b2)}
        change: dict[str, float | None] = {}
        for k in ("activities", "moving_hours", "km", "load", "load_per_week", "mean_ctl",
                  "power_5min_w", "power_20min_w"):
            x, y = pa.get(k), pb.get(k)
            change[k] = _r(y - x, 1) if x is not None and y is not None else None
        return {"summary": f"B vs A: load/week {pb['load_per_week']} vs {pa['load_per_week']}"
                           f", moving hours {pb['moving_hours']} vs {pa['moving_hours']}, "
                           f"mean CTL {pb['mean_ctl']} vs {pa['mean_ctl']}",
                "a": pa, "b": pb, "change": change}

    async def patterns(self, owner: Owner, weeks: int) -> Patterns:
        if not 4 <= weeks <= 104:
            raise FitnessInputError("weeks must be between 4 and 104")
        today = await self.today(owner)
        monday = today - timedelta(days=today.weekday())
        first = monday - timedelta(weeks=weeks)  # whole weeks, the running one left out
        last = monday - timedelta(days=1)
        loads = await self.daily_loads(owner, first, last)
        rows = await self._rows(owner, first, last)
        weekly = an.weekly_totals(loads)
        found: list[dict[str, Any]] = []

        def add(kind: str, finding: str, **detail: Any) -> None:
            found.append({"kind": kind, "finding": finding, **detail})

        t = an.trend(weekly)
        if t is not None:
            add("weekly_load_trend",
                f"weekly load {t.direction} ({t.slope_per_day:+.1f} per week, p = "
                f"{t.p_value:.3f})", slope_load_per_week=_r(t.slope_per_day, 2),
                p_value=_r(t.p_value, 3), direction=t.direction)
        hours = np.zeros(weeks)
        longest: dict[str, np.ndarray] = {}
        days: Counter[str] = Counter()
        for r in rows:
            d = local_day(r.start_at, r.utc_offset_s)
            k = (d - first).days // 7
            h = moving_seconds(r) / 3600.0
            hours[k] += h
            days[d.strftime("%A")] += 1
            if r.sport in ("run", "ride"):
                arr = longest.setdefault(r.sport, np.full(weeks, np.nan))
                arr[k] = np.fmax(arr[k], h)
        th = an.trend(hours)
        if th is not None:
            add("weekly_hours_trend", f"weekly moving hours {th.direction} "
                f"({th.slope_per_day:+.2f} h per week, p = {th.p_value:.3f})",
                slope_h_per_week=_r(th.slope_per_day, 2), p_value=_r(th.p_value, 3),
                direction=th.direction)
        for sport, arr in sorted(longest.items()):
            tl = an.trend(arr)
            if tl is not None:
                add(f"long_{sport}_progression", f"longest {sport} per week {tl.direction} "
                    f"({tl.slope_per_day * 60:+.1f} min per week, p = {tl.p_value:.3f})",
                    slope_min_per_week=_r(tl.slope_per_day * 60, 2), p_value=_r(tl.p_value, 3),
                    direction=tl.direction)
        kinds: tuple[Literal["power", "hr"], ...] = ("power", "hr")
        for kind in kinds:
            dist = await self.zone_distribution(owner, first.isoformat(), last.isoformat(),
                                                kind)
            if dist["distribution"] is not None:
                tz = dist["three_zone"]
                add("intensity_distribution", f"{dist['distribution']} by {kind}: low "
                    f"{tz['low_share']:.0%}, moderate {tz['moderate_share']:.0%}, high "
                    f"{tz['high_share']:.0%}"
                    + ("" if tz["low_share"] >= 0.75 else " (less than the 75-80 % easy of "
                       "Seiler's 80/20)"), basis=kind, **tz)
                break
        active_weeks = int(np.sum(weekly > 0))
        add("consistency", f"trained in {active_weeks} of {weeks} weeks; "
            f"{len(rows) / weeks:.1f} sessions per week", active_weeks=active_weeks,
            sessions_per_week=_r(len(rows) / weeks, 1))
        if days:
            day, count = days.most_common(1)[0]
            add("favourite_day", f"most sessions on {day} ({count})", day=day, count=count)
        summary = "; ".join(p["finding"] for p in found[:3]) or "no training in the period"
        return {"summary": f"{first} to {last}: {summary}", "from": first.isoformat(),
                "to": last.isoformat(), "patterns": found}



__all__ = ["CompareAnalysis"]
