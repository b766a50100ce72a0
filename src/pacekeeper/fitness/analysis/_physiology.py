"""Physiology: critical power, FTP estimates, W' balance, zone distribution and VO2max
(the tools of ``pacekeeper.tools.physiology``)."""

from __future__ import annotations

import asyncio
import math
from datetime import date, timedelta
from typing import Any, Literal, NotRequired

import numpy as np
from typing_extensions import TypedDict

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._records import Owner
from pacekeeper.fitness._settings import SettingsHistory, for_sport
from pacekeeper.fitness.analysis._base import AnalysisBase
from pacekeeper.fitness.analysis._common import (
    _INDEX,
    CHANNEL_NAMES,
    POWER_SPORT,
    ZONE_SETTINGS,
    _activity_uuid,
    _hms,
    _r,
    coggan_3zone,
    local_day,
    set_hint,
    sport_name,
)
from pacekeeper.fitness.analysis._results import (
    CriticalPowerResult,
    FtpEstimate,
    Vo2max,
    WPrimeBalance,
    ZoneDistribution,
)
from pacekeeper.fitness.streams import StreamSet

# What VO2max's answer says before its summary (written last, from what was found).
Vo2Figures = TypedDict("Vo2Figures", {
    "from": str, "to": str, "cycling_vo2max": NotRequired[float | None],
    "cycling_basis": NotRequired[str], "running_vdot": NotRequired[float | None],
    "running_basis": NotRequired[str]})


class PhysiologyAnalysis(AnalysisBase):
    async def critical_power(self, owner: Owner, start: str | None, end: str | None,
                             model: Literal["2p", "3p"], sport: str | None = None
                             ) -> CriticalPowerResult:
        sport = sport_name(sport, POWER_SPORT)
        first, last = await self.period(owner, start, end, 90)
        best = await self.period_curve(owner, "power", first, last, sport)
        ds = np.array(an.STANDARD_DURATIONS, dtype=float)
        fit = (an.critical_power_2p(ds, best) if model == "2p"
               else an.critical_power_3p(ds, best))
        window = (120, 1200) if model == "2p" else (1, 1800)
        used = int(np.sum((ds >= window[0]) & (ds <= window[1]) & np.isfinite(best)
                          & (np.nan_to_num(best) > 0)))
        if fit is None:
            raise FitnessInputError(
                f"not enough {sport} power data from {first} to {last} for the {model} model "
                f"(mean-maximal power between {window[0]} s and {window[1]} s is needed)")
        summary = (f"{sport} CP {fit.cp:.0f} W, W' {fit.w_prime / 1000:.1f} kJ (R^2 "
                   f"{fit.r_squared:.3f}, {model}, {first} to {last})")
        return {"summary": summary, "sport": sport, "model": model, "from": first.isoformat(),
                "to": last.isoformat(), "cp_watts": _r(fit.cp, 0),
                "w_prime_j": _r(fit.w_prime, 0), "r_squared": _r(fit.r_squared, 3),
                "p_max_watts": _r(fit.p_max, 0), "points": used,
                "window_s": list(window)}

    async def ftp_estimate(self, owner: Owner, start: str | None, end: str | None,
                           sport: str | None = None) -> FtpEstimate:
        sport = sport_name(sport, POWER_SPORT)
        first, last = await self.period(owner, start, end, 90)
        best = await self.period_curve(owner, "power", first, last, sport)
        ds = np.array(an.STANDARD_DURATIONS, dtype=float)
        settings = SettingsHistory(await self.store.settings(owner.user_id)).on(last)
        current = for_sport(settings, sport)[0].get("ftp_watts")  # the sport's own FTP
        estimates: list[dict[str, Any]] = []
        p20, p1 = float(best[_INDEX[1200]]), float(best[_INDEX[60]])
        if math.isfinite(p20):
            estimates.append({"method": "20min", "watts": _r(an.ftp_from_20min(p20), 0),
                              "basis": f"95 % of the best 20 min ({p20:.0f} W)"})
        cp = an.critical_power_2p(ds, best, 180.0, 1200.0)
        if cp is not None:
            estimates.append({"method": "cp", "watts": _r(cp.cp, 0),
                              "basis": f"2-parameter CP from 3-20 min bests, R^2 "
                                       f"{cp.r_squared:.3f}"})
        if math.isfinite(p1):
            estimates.append({"method": "ramp", "watts": _r(an.ftp_from_ramp(p1), 0),
                              "basis": f"75 % of the best 1 min ({p1:.0f} W): only valid "
                                       "if that minute ended a ramp test"})
        detection = an.detect_new_ftp(ds, best, current)
        if not estimates:
            raise FitnessInputError(f"no {sport} power data from {first} to {last}")
        if detection is not None:
            summary = (f"{sport} FTP estimate {detection.estimate:.0f} W ({detection.source}); "
                       f"current {current or 'not set'}"
                       + ("; higher: consider updating" if detection.improved else ""))
        else:
            summary = f"no 20 min best or good CP fit; current FTP {current or 'not set'}"
        return {"summary": summary, "sport": sport, "from": first.isoformat(),
                "to": last.isoformat(),
                "estimate_watts": _r(detection.estimate, 0) if detection else None,
                "source": detection.source if detection else None,
                "current_ftp_watts": current,
                "improved": detection.improved if detection else False,
                "estimates": estimates}

    async def w_prime_balance(self, owner: Owner, activity_id: str, cp: float | None,
                              w_prime: float | None, model: Literal["skiba2012", "skiba2015"],
                              max_points: int) -> WPrimeBalance:
        found = await self.store.get(owner.user_id, _activity_uuid(activity_id),
                                    hide=owner.withheld)
        if found is None:
            raise ActivityNotFound("no such activity")
        blob = await self.store.streams(owner.user_id, found.id)
        streams = StreamSet.from_bytes(blob) if blob else StreamSet.empty()
        power = streams.get("power") if streams.has("power") else None
        if power is None:
            raise FitnessInputError("this activity has no power stream")
        basis = "given"
        if cp is None or w_prime is None:
            day = local_day(found.start_at, found.utc_offset_s)
            fit = await self.critical_power(owner, (day - timedelta(days=89)).isoformat(),
                                            day.isoformat(), "2p", found.sport)
            cp = cp if cp is not None else fit["cp_watts"]
            w_prime = w_prime if w_prime is not None else fit["w_prime_j"]
            basis = f"2-parameter fit over the {found.sport}s of the 90 days to {day}"
        assert cp is not None
        assert w_prime is not None
        cp_f, w_f = float(cp), float(w_prime)
        bal = await asyncio.to_thread(
            an.w_prime_balance_skiba2012 if model == "skiba2012"
            else an.w_prime_balance_skiba2015, power, cp_f, w_f)
        low = int(np.argmin(bal))
        step = max(1, math.ceil(len(bal) / max_points))
        # Below 0 the model is wrong, not the rider: the series stops at 0 (empty), and
        # the answer says how far under it went and why.
        shown = np.maximum(bal, 0.0)
        series = [{"t_s": int(i), "w_prime_bal_j": _r(float(shown[i]), 0)}
                  for i in range(0, len(shown), step)]
        below = float(np.sum(bal < 0.25 * w_f))
        summary = (f"W' balance ({model}, CP {cp_f:.0f} W, W' {w_f / 1000:.1f} kJ): "
                   f"lowest {bal[low] / 1000:.1f} kJ ({100 * bal[low] / w_f:.0f} %) at "
                   f"{_hms(low)}")
        warning = None
        if bal[low] < 0:
            fix = ("give cp_watts and w_prime_j from a recent test" if basis != "given"
                   else "raise cp_watts or w_prime_j, or leave them out to fit them from "
                   "the last 90 days")
            warning = (f"W' balance fell to {100 * bal[low] / w_f:.0f} % of W' "
                       f"({bal[low] / 1000:.1f} kJ) at {_hms(low)}, which no rider can: "
                       f"CP {cp_f:.0f} W or W' {w_f / 1000:.1f} kJ is too low for this "
                       f"ride ({fix}); the series stops at 0 (W' empty)")
            summary = (f"W' balance ({model}, CP {cp_f:.0f} W, W' {w_f / 1000:.1f} kJ): "
                       f"empty from {_hms(int(np.argmax(bal < 0)))}; {warning}")
        out: WPrimeBalance = {
            "summary": summary, "activity_id": str(found.id), "model": model,
            "cp_watts": _r(cp_f, 0), "w_prime_j": _r(w_f, 0), "basis": basis,
            "min_w_prime_bal_j": _r(float(bal[low]), 0), "min_at_s": low,
            "time_below_25pct_s": int(below), "series": series}
        if warning is not None:
            out["warning"] = warning
        return out

    async def zone_distribution(self, owner: Owner, start: str | None, end: str | None,
                                kind: Literal["power", "hr", "pace"], sport: str | None = None
                                ) -> ZoneDistribution:
        # Power and pace zones are one sport's thresholds; heart-rate zones add up across
        # sports unless one is asked for.
        sport = sport_name(sport, {"power": POWER_SPORT, "pace": "run", "hr": None}[kind])
        first, last = await self.period(owner, start, end, 28)
        key = {"power": "time_in_power_zones", "hr": "time_in_hr_zones",
               "pace": "time_in_pace_zones"}[kind]
        extra = ("hr_zone_model",) if kind == "hr" else ()
        rows = await self._rows(owner, first, last, (key, *extra), sport=sport)
        rows = [r for r in rows if r.metrics.get(key)]
        model = None
        if kind == "hr" and rows:  # zone models differ in count: the latest one's
            model = rows[-1].metrics.get("hr_zone_model")
            rows = [r for r in rows if r.metrics.get("hr_zone_model") == model]
        n = max((len(r.metrics[key]) for r in rows), default=0)
        total = np.zeros(n)
        for r in rows:
            z = np.asarray(r.metrics[key], float)
            total[: len(z)] += z
        all_s = float(total.sum())
        if all_s <= 0:
            return await self._no_zones(owner, kind, first, last)
        z1, z2, z3 = coggan_3zone(total.tolist(), kind, n)
        dist = an.intensity_distribution(z1, z2, z3)
        zones = [{"zone": i + 1, "seconds": _r(float(s), 0),
                  "share": _r(float(s) / all_s, 3) if all_s else 0.0}
                 for i, s in enumerate(total)]
        if dist.polarization_index is not None and dist.polarization_index > 2.0:
            shape = "polarized"
        elif dist.zone1 >= dist.zone2 >= dist.zone3:
            shape = "pyramidal"
        elif dist.zone2 > dist.zone1:
            shape = "threshold"
        else:
            shape = "mixed"
        return {"summary": f"{kind} zones ({sport or 'all sports'}) {first} to {last} "
                           f"({len(rows)} activities, "
                           f"{all_s / 3600:.1f} h): low {dist.zone1:.0%}, mid {dist.zone2:.0%}, "
                           f"high {dist.zone3:.0%} ({shape})",
                "kind": kind, "sport": sport or "all", "from": first.isoformat(),
                "to": last.isoformat(), "activities": len(rows),
                "zone_model": model or {"power": "coggan", "pace": "friel_pace",
                                        "hr": "none"}[kind],
                "zones": zones,
                "three_zone": {"low_share": dist.zone1, "moderate_share": dist.zone2,
                               "high_share": dist.zone3,
                               "polarization_index": dist.polarization_index},
                "distribution": shape}

    async def _no_zones(self, owner: Owner, kind: Literal["power", "hr", "pace"],
                        first: date, last: date) -> ZoneDistribution:
        """No time in zones: which threshold is missing and how to set it, or that no
        activity of the period recorded the channel (never a shape of nothing)."""
        names, what = ZONE_SETTINGS[kind]
        settings = SettingsHistory(await self.store.settings(owner.user_id)).on(last)
        missing = [] if any(settings.get(n) for n in names) else list(names)
        reason = (f"{what}: {set_hint(missing)}" if missing else
                  f"no activity with {CHANNEL_NAMES[kind]} data in the period")
        return {"summary": f"{kind} zones {first} to {last}: none; {reason}",
                "kind": kind, "from": first.isoformat(), "to": last.isoformat(),
                "activities": 0, "zone_model": None, "zones": [],
                "three_zone": {"low_share": None, "moderate_share": None,
                               "high_share": None, "polarization_index": None},
                "distribution": None, "missing": missing}

    async def vo2max(self, owner: Owner) -> Vo2max:
        day = await self.today(owner)
        first = day - timedelta(days=89)
        best = await self.period_curve(owner, "power", first, day, POWER_SPORT)
        weight = SettingsHistory(await self.store.settings(owner.user_id)).on(day).get(
            "weight_kg")
        out: Vo2Figures = {"from": first.isoformat(), "to": day.isoformat()}
        p5 = float(best[_INDEX[300]])
        parts = []
        if math.isfinite(p5) and weight:
            v = an.vo2max_from_power(p5, weight)
            out["cycling_vo2max"] = _r(v, 1)
            out["cycling_basis"] = (f"best 5 min ride {p5:.0f} W at {weight} kg (Sitko et al. "
                                    "2021: 16.6 + 8.87 W/kg)")
            parts.append(f"cycling {v:.1f}")
        vdot = self._vdot(await self._efforts(owner, first, day))
        if vdot:
            out["running_vdot"] = _r(vdot[0], 1)
            out["running_basis"] = f"Daniels VDOT of the best {vdot[1]}"
            parts.append(f"running VDOT {vdot[0]:.1f}")
        summary = ("VO2max estimates (ml/kg/min), 90 days: " + ", ".join(parts)
                          if parts else "no 5 min power with a weight, and no run best "
                          "efforts of a mile or more, in the last 90 days")
        return {**out, "summary": summary}



__all__ = ["PhysiologyAnalysis"]
