"""Training load: the summary, the fitness chart (PMC), load risk, readiness, recovery
and weekly load (the tools of ``pacekeeper.tools.load``)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

import numpy as np

from pacekeeper.fitness import _inputs
from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import FitnessInputError
from pacekeeper.fitness._records import Owner
from pacekeeper.fitness.analysis._base import AnalysisBase
from pacekeeper.fitness.analysis._common import (
    _INDEX,
    ATL_DAYS,
    CTL_DAYS,
    MAX_TIME_CONSTANT_DAYS,
    POWER_SPORT,
    READINESS_INPUTS,
    READINESS_NONE,
    READINESS_UNITS,
    _hms,
    _r,
    _score,
    _signed,
    local_day,
    moving_seconds,
)
from pacekeeper.fitness.analysis._results import (
    ChartDay,
    FitnessChart,
    LoadRisk,
    ReadinessResult,
    RecoveryStatus,
    TrainingSummary,
    WeeklyLoad,
)
from pacekeeper.fitness.analytics._types import FloatArray

Risk = Literal["low", "moderate", "high"]


class LoadAnalysis(AnalysisBase):
    @staticmethod
    def time_constant(value: int | None, name: str, default: int) -> int:
        """A CTL / ATL time constant in whole days (1 to 365); 400 otherwise."""
        if value is None:
            return default
        if (isinstance(value, bool) or not isinstance(value, int)
                or not 1 <= value <= MAX_TIME_CONSTANT_DAYS):
            raise FitnessInputError(
                f"{name} must be a whole number of days from 1 to {MAX_TIME_CONSTANT_DAYS}")
        return value

    async def fitness_chart(self, owner: Owner, start: str | None, end: str | None,
                            ctl_days: int | None = None, atl_days: int | None = None,
                            *, planned: Mapping[date, float] | None = None
                            ) -> FitnessChart:
        """``planned``: the plan's loads of days after today (``pacekeeper.workouts``),
        projected through the same PMC; the summary says from which day."""
        first, last = await self.period(owner, start, end, 90)
        tc = self.time_constant(ctl_days, "ctl_days", CTL_DAYS)
        ta = self.time_constant(atl_days, "atl_days", ATL_DAYS)
        loads, p = await self.pmc(owner, first, last, ctl_days=tc, atl_days=ta,
                                  planned=planned)
        stale = await self.recomputing(owner)
        ctl, atl, tsb = (np.round(a, 1).tolist() for a in (p.ctl, p.atl, p.tsb))
        rounded = np.round(loads, 1)
        load = rounded.tolist()
        # The dates as text in one numpy call (ISO 8601, what date.isoformat gives).
        dates = np.arange(np.datetime64(first, "D"), np.datetime64(last, "D") + 1
                          ).astype(str).tolist()
        days: list[ChartDay] = [{"date": d, "ctl": c, "atl": a, "tsb": t, "load": x}
                for d, c, a, t, x in zip(dates, ctl, atl, tsb, load, strict=True)]
        summary = (f"{first} to {last}: CTL {ctl[-1]}, ATL {atl[-1]}, TSB "
                   f"{_signed(p.tsb[-1])} on the "
                   f"last day; {int(np.count_nonzero(rounded > 0))} training days")
        if (tc, ta) != (CTL_DAYS, ATL_DAYS):
            summary += f" (CTL {tc} days, ATL {ta} days)"
        if stale:
            summary += f" ({stale} activities being recomputed)"
        if planned is not None:
            ahead = sorted(d for d in planned if first <= d <= last)
            summary += (f"; projected with the plan's load on {len(ahead)} days from "
                        f"{ahead[0]}" if ahead else "; no planned load in range")
        unmeasured = await self.store.count_without_load(
            owner.user_id, datetime.combine(first - timedelta(days=1), time.min, UTC),
            datetime.combine(last + timedelta(days=2), time.min, UTC), hide=owner.withheld)
        if unmeasured:  # a day either side: the local day of a UTC start
            summary += (f"; {unmeasured} activities have no training load: set ftp_watts "
                        "(power), threshold_pace_s_per_km (runs) or lthr_bpm, max_hr_bpm "
                        "and resting_hr_bpm (heart rate) with update_athlete_settings or "
                        "PATCH /api/athlete")
        return {"summary": summary, "from": first.isoformat(), "to": last.isoformat(),
                "ctl_days": tc, "atl_days": ta, "recomputing": stale, "days": days}

    async def load_risk(self, owner: Owner, on: str | None) -> LoadRisk:
        day = _inputs.day(on, "date") or await self.today(owner)
        loads, p = await self.pmc(owner, day - timedelta(days=119), day)
        acwr = an.acwr_rolling(loads)[-1]
        ewma = an.acwr_ewma(loads)[-1]
        ms = an.monotony_strain(loads)
        ramp = an.ramp_rate(p.ctl)[-1]
        flags: list[str] = []
        if math.isfinite(acwr) and acwr > 1.5:
            flags.append(f"ACWR {acwr:.2f} above 1.5: a spike in load (Gabbett 2016)")
        elif math.isfinite(acwr) and acwr < 0.8:
            flags.append(f"ACWR {acwr:.2f} below 0.8: load falling off (detraining)")
        mono = float(ms.monotony[-1])
        if math.isfinite(mono) and mono > 2.0:
            flags.append(f"monotony {mono:.2f} above 2.0: too little variation (Foster 1998)")
        if math.isfinite(ramp) and ramp > 8:
            flags.append(f"CTL ramp {ramp:.1f}/week above 8: steep build")
        risk: Risk = "high" if len(flags) >= 2 or (math.isfinite(acwr) and acwr > 1.5) else (
            "moderate" if flags else "low")
        return {
            "summary": f"{day}: load risk {risk}; ACWR {_r(acwr, 2)}, monotony {_r(mono, 2)}, "
                       f"strain {_r(float(ms.strain[-1]), 0)}, ramp {_r(ramp)} CTL/week",
            "date": day.isoformat(), "risk": risk,
            "acwr_rolling": _r(acwr, 2), "acwr_ewma": _r(ewma, 2),
            "acute_load_7d": _r(float(loads[-7:].sum())),
            "chronic_load_28d_mean": _r(float(loads[-28:].mean())),
            "monotony": _r(mono, 2), "strain": _r(float(ms.strain[-1]), 0),
            "weekly_load": _r(float(ms.weekly_load[-1])),
            "ramp_rate": _r(ramp, 1), "ctl": _r(float(p.ctl[-1])), "atl": _r(float(p.atl[-1])),
            "flags": flags,
        }

    async def readiness(self, owner: Owner, on: str | None) -> ReadinessResult:
        """Readiness on a day (``an.readiness``). Each input's ``value`` is the day's own
        figure (the daily summary's HRV and resting HR, last night's sleep, the day's TSB);
        HRV and resting HR score their 7-day mean (``mean_7d``) against the 60-day
        ``baseline``. ``missing`` names the inputs absent (no training: TSB 0 counts as
        neutral form when health was recorded). Nothing recorded and no training: no
        score (a 50 would be made up), and what to connect or import."""
        day = _inputs.day(on, "date") or await self.today(owner)
        ctl, _, tsb = await self.form(owner, day)
        trained = ctl > 0.0  # any load up to this day
        health = await self._health(owner, day - timedelta(days=59), day)
        days = [day - timedelta(days=59 - i) for i in range(60)]

        def series(name: str) -> FloatArray:
            return np.array([health.get(d, {}).get(name, np.nan) for d in days], float)

        hrv, rhr = series("hrv_rmssd_ms"), series("resting_hr")
        today = health.get(day, {})
        sleep_s = today.get("sleep_s")
        result = an.readiness(
            hrv_ms=hrv if np.isfinite(hrv).any() else None,
            resting_hr=rhr if np.isfinite(rhr).any() else None,
            sleep_hours=None if sleep_s is None else sleep_s / 3600.0,
            sleep_score=today.get("sleep_score"), tsb=tsb)
        assert result is not None  # TSB is always an input
        used_names = {i.name for i in result.inputs}
        missing = [label for label, names in READINESS_INPUTS.items()
                   if not used_names & set(names) or (label == "training" and not trained)]
        if used_names == {"tsb"} and not trained:  # nothing at all: 50 would be made up
            return {"summary": f"{day}: no readiness: {READINESS_NONE}",
                    "date": day.isoformat(), "score": None, "level": "no_data",
                    "tsb": None, "inputs": [], "missing": missing}
        own = {"hrv": today.get("hrv_rmssd_ms"), "resting_hr": today.get("resting_hr")}
        inputs: list[dict[str, Any]] = []
        for i in result.inputs:
            # The unit beside the figures (value, mean_7d, baseline): an input's own.
            item: dict[str, Any] = {"name": i.name, "unit": READINESS_UNITS[i.name],
                                    "value": i.value}
            if i.name in own:  # scored on the 7-day mean; the day's own figure shown
                item = {**item, "value": own[i.name], "mean_7d": i.value}
            inputs.append({**item, "baseline": i.baseline, "z": i.z,
                           "weight": i.weight, "score_points": i.contribution})
        score = round(result.score)
        level = "high" if score >= 65 else "normal" if score >= 40 else "low"
        used = ", ".join(i["name"] for i in inputs)
        summary = f"{day}: readiness {score}/100 ({level}) from {used}"
        if missing:
            summary += f"; without {', '.join(missing)}"
        out: ReadinessResult = {"summary": summary, "date": day.isoformat(), "score": score,
               "level": level, "tsb": _r(tsb), "inputs": inputs}
        if missing:
            out["missing"] = missing
        return out

    async def recovery_status(self, owner: Owner) -> RecoveryStatus:
        day = await self.today(owner)
        loads, p = await self.pmc(owner, day - timedelta(days=27), day)
        ready = await self.readiness(owner, day.isoformat())
        score = ready["score"]  # None: nothing recorded to score
        ctl, atl = float(p.ctl[-1]), float(p.atl[-1])
        form = float(p.tsb[-1])  # today's TSB, as every answer gives it (``form``)
        hard = [i for i in range(len(loads)) if loads[i] > max(1.5 * ctl, 60.0)]
        since = None if not hard else len(loads) - 1 - hard[-1]
        if form < -30 or (score is not None and score < 30):
            state, advice = "very_fatigued", "rest or 30-45 min very easy; no intensity"
        elif form < -10 or (score is not None and score < 40):
            state, advice = "fatigued", "easy aerobic training only (zone 1-2) until TSB > -10"
        elif form <= 5:
            state, advice = "neutral", "normal training; a quality session is fine"
        elif form <= 25:
            state, advice = "fresh", "ready for a hard session or a race"
        else:
            state, advice = "detraining", "fresh but losing fitness: add training load"
        return {
            "summary": f"{state.replace('_', ' ')}: form (TSB) {_signed(form)} (CTL "
                       f"{ctl:.1f}, ATL {atl:.1f}), readiness {_score(score)}; {advice}",
            "state": state, "advice": advice, "tsb": _r(form), "ctl": _r(ctl),
            "atl": _r(atl), "readiness": score,
            "days_since_hard_session": since,
            "load_7d": _r(float(loads[-7:].sum())),
        }

    async def weekly_load(self, owner: Owner, weeks: int) -> WeeklyLoad:
        if not 1 <= weeks <= 104:
            raise FitnessInputError("weeks must be between 1 and 104")
        today = await self.today(owner)
        # Weeks start on the person's first day of the week (Monday unless set Sunday).
        start = await self.week_start(owner, today)
        first = start - timedelta(weeks=weeks - 1)
        rows = await self._rows(owner, first, today)
        table: dict[date, dict[str, dict[str, float]]] = defaultdict(dict)
        for r in rows:
            d = local_day(r.start_at, r.utc_offset_s)
            week = first + timedelta(weeks=(d - first).days // 7)
            t = table[week].setdefault(r.sport, {"sessions": 0, "moving_hours": 0.0,
                                                 "km": 0.0, "load": 0.0})
            t["sessions"] += 1
            t["moving_hours"] += moving_seconds(r) / 3600.0
            t["km"] += (r.distance_m or 0.0) / 1000.0
            t["load"] += r.load or 0.0
        out: list[dict[str, Any]] = []
        for k in range(weeks):
            week = first + timedelta(weeks=k)
            sports = {s: {"sessions": int(v["sessions"]),
                          "moving_hours": _r(v["moving_hours"], 1),
                          "km": _r(v["km"]), "load": _r(v["load"])}
                      for s, v in sorted(table.get(week, {}).items())}
            out.append({"week": week.isoformat(),
                        "load": _r(sum(v["load"] for v in table.get(week, {}).values())),
                        "moving_hours": _r(sum(v["moving_hours"]
                                               for v in table.get(week, {}).values()), 1),
                        "by_sport": sports})
        loads = [w["load"] or 0.0 for w in out]
        return {"summary": f"{weeks} weeks from {first}: mean load "
                           f"{sum(loads) / weeks:.0f} per week, last week {loads[-1]:.0f}",
                "weeks": out}

    async def training_summary(self, owner: Owner) -> TrainingSummary:
        """The first call: today's CTL / ATL / TSB, the last four weeks by sport, recent
        bests (90 days) and readiness, in well under 2 KB."""
        day = await self.today(owner)
        loads, p = await self.pmc(owner, day - timedelta(days=27), day)
        rows = await self._rows(owner, day - timedelta(days=27), day)
        weekly = [float(loads[i:i + 7].sum()) for i in range(0, 28, 7)]
        bests = await self.recent_bests(owner, day)
        ready = await self.readiness(owner, day.isoformat())
        stale = await self.recomputing(owner)
        ctl, atl, tsb = float(p.ctl[-1]), float(p.atl[-1]), float(p.tsb[-1])
        ramp = float(p.ctl[-1] - p.ctl[-8])
        summary = (f"CTL {ctl:.1f}, ATL {atl:.1f}, TSB {_signed(tsb)}; {len(rows)} "
                   f"activities in 4 weeks; readiness {_score(ready['score'])}")
        if stale:
            summary += f"; {stale} activities being recomputed"
        return {
            "summary": summary, "date": day.isoformat(),
            "ctl": _r(ctl), "atl": _r(atl), "tsb": _r(tsb), "ramp_7d": _r(ramp),
            "weekly_load": [_r(w, 0) for w in weekly],
            "last_4_weeks": self.totals(rows), "recent_bests": bests,
            "readiness": {"score": ready["score"], "level": ready["level"]},
            "recomputing": stale,
        }

    async def recent_bests(self, owner: Owner, day: date) -> dict[str, Any]:
        first = day - timedelta(days=89)
        power = await self.period_curve(owner, "power", first, day, POWER_SPORT)
        out: dict[str, Any] = {}
        for d in (5, 60, 300, 1200):
            v = power[_INDEX[d]]
            if math.isfinite(v):
                out[f"power_{d}s_w"] = float(v)
        efforts = await self._efforts(owner, first, day)
        for name in ("5km", "10km", "half_marathon"):
            if name in efforts:
                out[f"run_{name}"] = _hms(efforts[name][0])
        vdot = self._vdot(efforts)
        if vdot is not None:
            out["vdot"] = round(vdot[0], 1)
        return out



__all__ = ["LoadAnalysis"]
