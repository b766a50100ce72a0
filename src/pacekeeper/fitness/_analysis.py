"""Analysis over a person's stored activities: the answers of the analysis tools and their
HTTP twins (one method builds each result for both).

Period questions read what import stored per activity (``activities.load`` and members
of ``activities.metrics``: curves at ``curve_durations``, time in zones, best efforts),
never the streams; only ``w_prime_balance`` reads one activity's streams. Every query
names the owner; nothing is cached between calls.

Conventions:

- A day is the activity's local day (start plus its UTC offset; UTC when unknown).
- The PMC starts at the person's first activity with a load, whatever range is asked
  (``pmc``); TSB of a day is form going into it, CTL - ATL of the day before (``form``).
- Curves: per activity, the mean-maximal values at the ``STANDARD_DURATIONS`` no longer
  than the activity; a period's curve is their element-wise best (``merge_curves``).
- ``recomputing``: activities whose stored metrics predate a settings change valid on
  their day (a recomputation has not reached them yet): figures may still change.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final, Literal

import numpy as np

from pacekeeper.errors import ApiError
from pacekeeper.fitness import _inputs
from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._calculators import predict_race
from pacekeeper.fitness._errors import ActivityNotFound, FitnessInputError
from pacekeeper.fitness._records import DailyHealth, Goal, Owner, PeriodRow, StoredActivity
from pacekeeper.fitness._settings import SettingsHistory, for_sport
from pacekeeper.fitness._store import SqlFitnessStore
from pacekeeper.fitness._views import daily_json
from pacekeeper.fitness.analytics._types import FloatArray
from pacekeeper.fitness.models import Sport
from pacekeeper.fitness.streams import StreamSet

Clock = Callable[[], datetime]
CurveKind = Literal["power", "hr", "pace"]

CTL_DAYS: Final = 42
ATL_DAYS: Final = 7
MAX_TIME_CONSTANT_DAYS: Final = 365
MAX_DAYS: Final = 4018  # eleven years
DEFAULT_CURVE_DURATIONS: Final = (1, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 5400,
                                  7200, 10800)
_INDEX: Final = {d: i for i, d in enumerate(an.STANDARD_DURATIONS)}
_CURVE_KEY: Final = {"power": "power_curve", "hr": "hr_curve", "pace": "speed_curve"}
RUN_SPORTS: Final = ("run", "walk", "hike")
# Power figures are one sport's: a run's power (a footpod's or a watch's model of running
# power) is another quantity than a crank's, so it never feeds cycling curves or estimates.
POWER_SPORT: Final = "ride"
_SPORTS: Final = tuple(str(s) for s in Sport)


def sport_name(text: str | None, default: str | None) -> str | None:
    """The sport asked for (a stored sport name), else ``default``; 400 for another word."""
    if text is None or text == "":
        return default
    if text not in _SPORTS:
        raise FitnessInputError(f"sport must be one of {', '.join(_SPORTS)}")
    return text
GOAL_KINDS: Final = ("race", "ftp", "weight", "volume")
MAX_GOALS: Final = 50


class GoalNotFound(ApiError):
    status = 404
    code = "not_found"


def _r(value: float | None, digits: int = 1) -> float | None:
    if value is None or not math.isfinite(value):
        return None
    return round(float(value), digits)


def moving_seconds(row: PeriodRow | StoredActivity) -> float:
    """An activity's moving time, else its elapsed time where the source recorded no
    moving time: the one duration every period total sums (``moving_hours``); answers
    that give elapsed time name it ``elapsed``."""
    return row.moving_s or row.elapsed_s


def _signed(value: float) -> str:
    """A TSB as every summary writes it: one decimal, signed (the field's rounding)."""
    r = _r(value)
    return f"{r:+.1f}" if r else "0.0"


def _score(score: int | None) -> str:
    return "none (no data)" if score is None else str(score)


def local_day(start_at: datetime, utc_offset_s: int | None) -> date:
    return (start_at.astimezone(UTC) + timedelta(seconds=utc_offset_s or 0)).date()


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, UTC)


def _hms(seconds: float) -> str:
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _pace(s_per_km: float) -> str:
    return f"{_hms(s_per_km)}/km"


def aligned(curve: Sequence[float | None] | None, durations: Sequence[int] | None
            ) -> FloatArray:
    """A stored curve on the full ``STANDARD_DURATIONS`` grid (NaN where absent)."""
    out = np.full(len(an.STANDARD_DURATIONS), np.nan)
    if not curve or not durations:
        return out
    n = len(durations)
    if (n == len(curve) and n <= len(out) and durations[0] == an.STANDARD_DURATIONS[0]
            and durations[-1] == an.STANDARD_DURATIONS[n - 1]):
        # What import stores: the standard grid up to the activity's length (a prefix).
        out[:n] = np.array(curve, dtype=np.float64)  # None becomes NaN
        return out
    for d, v in zip(durations, curve, strict=False):
        i = _INDEX.get(int(d))
        if i is not None and v is not None:
            out[i] = float(v)
    return out


def coggan_3zone(seconds: Sequence[float], kind: str, zones: int) -> tuple[float, float, float]:
    """Seconds below / between / above the two thresholds of Seiler's 3-zone model, from
    the stored zone times: power (Coggan 7 levels): Z1 = L1-L2 (< 75 % FTP), Z2 = L3-L4
    (75-105 %), Z3 = L5-L7; HR Friel (7 zones of LTHR) and pace Friel: Z1 = zones 1-2,
    Z2 = 3-4, Z3 = 5a-5c; 5-zone HR models (Karvonen, % max): Z1 = 1-2, Z2 = 3-4, Z3 = 5."""
    s = list(seconds) + [0.0] * max(0, zones - len(seconds))
    return sum(s[0:2]), sum(s[2:4]), sum(s[4:])


def possible_efforts(stored: dict[str, float | None] | None) -> dict[str, float]:
    """An activity's stored best efforts that a runner can have run: metrics stored before
    ``best_efforts`` measured from the first sample may hold a negative time ("10 km in
    -5.0 s"); such a figure is left out until the activity is recomputed."""
    out: dict[str, float] = {}
    for name, t in (stored or {}).items():
        meters = an.BEST_EFFORT_DISTANCES.get(name)
        if t is not None and meters is not None and t >= meters / an.MAX_RUN_SPEED_MPS:
            out[name] = float(t)
    return out


READINESS_INPUTS: Final = {"hrv": ("hrv",), "resting_hr": ("resting_hr",),
                            "sleep": ("sleep_duration", "sleep_score"), "training": ("tsb",)}
READINESS_NONE: Final = ("no HRV, resting heart rate or sleep recorded and no training "
                         "load: connect a device that records them on the Connections page, "
                         "or import activities (import_activity) for a training load")
SETTINGS_HOW: Final = "the update_athlete_settings tool or PATCH /api/athlete"
ZONE_SETTINGS: Final[dict[str, tuple[tuple[str, ...], str]]] = {
    "power": (("ftp_watts",), "no FTP set"),
    "hr": (("lthr_bpm", "max_hr_bpm"), "no threshold or maximum heart rate set"),
    "pace": (("threshold_pace_s_per_km",), "no threshold pace set"),
}
CHANNEL_NAMES: Final = {"power": "power", "hr": "heart rate", "pace": "run speed"}


def set_hint(names: Sequence[str]) -> str:
    """How to set a missing setting, said the same way by every answer that needs one."""
    return (f"set {' or '.join(names)} with {SETTINGS_HOW}, valid_from the first day it "
            "held: the activities from that day on are recomputed with it")


WHERE_DAYS = 30  # an activity older than this says nothing of where its athlete is now


class AnalysisService:
    def __init__(self, store: SqlFitnessStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    async def today(self, owner: Owner) -> date:
        """The person's own today: the date at the UTC offset of their latest activity of
        the last ``WHERE_DAYS`` days (the service keeps no time zone setting; a recent
        activity says where they are), UTC's without one. A UTC date would leave a Sydney
        morning's ride out of "today" (and of the week, the summary and the chart) until
        10:00 there."""
        now = self.clock().astimezone(UTC)
        offset = await self.store.latest_offset(
            owner.user_id, now - timedelta(days=WHERE_DAYS), now)
        return (now + timedelta(seconds=offset or 0)).date()

    # -- periods ----------------------------------------------------------------------------

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
            _midnight(last + timedelta(days=2)), keys, sport=sport)
        return [r for r in rows if first <= local_day(r.start_at, r.utc_offset_s) <= last]

    async def daily_loads(self, owner: Owner, first: date, last: date) -> FloatArray:
        """Sum of activity loads per local day, index 0 = ``first`` (0 on rest days)."""
        n = (last - first).days + 1
        points = await self.store.load_points(
            owner.user_id, _midnight(first - timedelta(days=1)),
            _midnight(last + timedelta(days=2)))
        if not points:
            return np.zeros(max(n, 0))
        table = np.array(points, dtype=np.float64)  # (local start s, load) per activity
        origin = _midnight(first).timestamp()
        index = np.floor_divide(table[:, 0] - origin, 86400.0).astype(np.int64)
        ok = (index >= 0) & (index < n)
        return np.bincount(index[ok], weights=table[ok, 1], minlength=n).astype(np.float64)

    async def pmc(self, owner: Owner, first: date, last: date, *,
                  ctl_days: int = CTL_DAYS, atl_days: int = ATL_DAYS
                  ) -> tuple[FloatArray, an.Pmc]:
        """Daily loads and CTL / ATL / TSB for [first, last], with the given time
        constants (42 and 7 days by default): the one PMC every answer reads.

        The series starts at the person's first activity with a load (CTL and ATL 0
        before it), whatever range is asked: CTL on a day is the same from a chart of a
        week, of a year or from the summary (a start at a fixed warm-up before ``first``
        left older load out, and the same day read 30.5 or 30.4 by range)."""
        origin = await self.store.first_load_start(owner.user_id)
        start = first
        if origin is not None:  # a day early: its local day may be the UTC day before
            start = min(first, origin.astimezone(UTC).date() - timedelta(days=1))
        k = (first - start).days
        loads = await self.daily_loads(owner, start, last)
        chart = an.ctl_atl_tsb(loads, ctl_days, atl_days)
        return loads[k:], an.Pmc(chart.ctl[k:], chart.atl[k:], chart.tsb[k:])

    async def form(self, owner: Owner, day: date) -> tuple[float, float, float]:
        """(CTL, ATL, TSB) on ``day``: CTL and ATL after the day's training, TSB = form
        going into the day = CTL - ATL of the day before (Coggan / TrainingPeaks). Every
        answer that names a day's form (TSB) reads it here."""
        _, p = await self.pmc(owner, day, day)
        return float(p.ctl[-1]), float(p.atl[-1]), float(p.tsb[-1])

    async def recomputing(self, owner: Owner) -> int:
        return await self.store.stale_activities(owner.user_id)

    # -- load -------------------------------------------------------------------------------

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
                            ctl_days: int | None = None, atl_days: int | None = None
                            ) -> dict[str, Any]:
        first, last = await self.period(owner, start, end, 90)
        tc = self.time_constant(ctl_days, "ctl_days", CTL_DAYS)
        ta = self.time_constant(atl_days, "atl_days", ATL_DAYS)
        loads, p = await self.pmc(owner, first, last, ctl_days=tc, atl_days=ta)
        stale = await self.recomputing(owner)
        ctl, atl, tsb = (np.round(a, 1).tolist() for a in (p.ctl, p.atl, p.tsb))
        rounded = np.round(loads, 1)
        load = rounded.tolist()
        # The dates as text in one numpy call (ISO 8601, what date.isoformat gives).
        dates = np.arange(np.datetime64(first, "D"), np.datetime64(last, "D") + 1
                          ).astype(str).tolist()
        days = [{"date": d, "ctl": c, "atl": a, "tsb": t, "load": x}
                for d, c, a, t, x in zip(dates, ctl, atl, tsb, load, strict=True)]
        summary = (f"{first} to {last}: CTL {ctl[-1]}, ATL {atl[-1]}, TSB "
                   f"{_signed(p.tsb[-1])} on the "
                   f"last day; {int(np.count_nonzero(rounded > 0))} training days")
        if (tc, ta) != (CTL_DAYS, ATL_DAYS):
            summary += f" (CTL {tc} days, ATL {ta} days)"
        if stale:
            summary += f" ({stale} activities being recomputed)"
        return {"summary": summary, "from": first.isoformat(), "to": last.isoformat(),
                "ctl_days": tc, "atl_days": ta, "recomputing": stale, "days": days}

    async def load_risk(self, owner: Owner, on: str | None) -> dict[str, Any]:
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
        risk = "high" if len(flags) >= 2 or (math.isfinite(acwr) and acwr > 1.5) else (
            "moderate" if flags else "low")
        return {
            "summary": f"{day}: load risk {risk}; ACWR {_r(acwr, 2)}, monotony {_r(mono, 2)}, "
                       f"strain {_r(float(ms.strain[-1]), 0)}, ramp {_r(ramp)} CTL/week",
            "date": day.isoformat(), "risk": risk,
            "acwr_rolling": _r(acwr, 3), "acwr_ewma": _r(ewma, 3),
            "acute_load_7d": _r(float(loads[-7:].sum())),
            "chronic_load_28d_mean": _r(float(loads[-28:].mean())),
            "monotony": _r(mono, 3), "strain": _r(float(ms.strain[-1])),
            "weekly_load": _r(float(ms.weekly_load[-1])),
            "ramp_rate": _r(ramp, 2), "ctl": _r(float(p.ctl[-1])), "atl": _r(float(p.atl[-1])),
            "flags": flags,
        }

    async def _health(self, owner: Owner, first: date, last: date
                      ) -> dict[date, dict[str, Any]]:
        """Daily health per day, merged across sources by the one rule the daily
        summaries use (``daily_json``: the first source in name order with a figure), so
        readiness and get_daily_summaries read the same HRV and resting HR for a day."""
        days: list[DailyHealth] = await self.store.daily(owner.user_id, first, last)
        return {date.fromisoformat(e["date"]): e for e in daily_json(days)}

    async def readiness(self, owner: Owner, on: str | None) -> dict[str, Any]:
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
            item: dict[str, Any] = {"name": i.name, "value": _r(i.value, 2)}
            if i.name in own:  # scored on the 7-day mean; the day's own figure shown
                item = {"name": i.name, "value": _r(own[i.name], 2),
                        "mean_7d": _r(i.value, 2)}
            inputs.append({**item, "baseline": _r(i.baseline, 2), "z": _r(i.z, 2),
                           "weight": i.weight, "points": _r(i.contribution, 1)})
        score = round(result.score)
        level = "high" if score >= 65 else "normal" if score >= 40 else "low"
        used = ", ".join(i["name"] for i in inputs)
        summary = f"{day}: readiness {score}/100 ({level}) from {used}"
        if missing:
            summary += f"; without {', '.join(missing)}"
        out = {"summary": summary, "date": day.isoformat(), "score": score,
               "level": level, "tsb": _r(tsb), "inputs": inputs}
        if missing:
            out["missing"] = missing
        return out

    async def recovery_status(self, owner: Owner) -> dict[str, Any]:
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
            "load_last_7_days": _r(float(loads[-7:].sum())),
        }

    async def weekly_load(self, owner: Owner, weeks: int) -> dict[str, Any]:
        if not 1 <= weeks <= 104:
            raise FitnessInputError("weeks must be between 1 and 104")
        today = await self.today(owner)
        monday = today - timedelta(days=today.weekday())
        first = monday - timedelta(weeks=weeks - 1)
        rows = await self._rows(owner, first, today)
        table: dict[date, dict[str, dict[str, float]]] = defaultdict(dict)
        for r in rows:
            d = local_day(r.start_at, r.utc_offset_s)
            week = d - timedelta(days=d.weekday())
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
                          "moving_hours": _r(v["moving_hours"], 2),
                          "km": _r(v["km"]), "load": _r(v["load"])}
                      for s, v in sorted(table.get(week, {}).items())}
            out.append({"week": week.isoformat(),
                        "load": _r(sum(v["load"] for v in table.get(week, {}).values())),
                        "moving_hours": _r(sum(v["moving_hours"]
                                               for v in table.get(week, {}).values()), 2),
                        "by_sport": sports})
        loads = [w["load"] or 0.0 for w in out]
        return {"summary": f"{weeks} weeks from {first}: mean load "
                           f"{sum(loads) / weeks:.0f} per week, last week {loads[-1]:.0f}",
                "weeks": out}

    # -- totals and summary -----------------------------------------------------------------

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

    async def training_summary(self, owner: Owner) -> dict[str, Any]:
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
                out[f"power_{d}s"] = round(float(v))
        efforts = await self._efforts(owner, first, day)
        for name in ("5km", "10km", "half_marathon"):
            if name in efforts:
                out[f"run_{name}"] = _hms(efforts[name][0])
        vdot = self._vdot(efforts)
        if vdot is not None:
            out["vdot"] = round(vdot[0], 1)
        return out

    # -- curves -----------------------------------------------------------------------------

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

    async def curve(self, owner: Owner, kind: CurveKind, *, activity_id: str | None,
                    start: str | None, end: str | None, durations: Sequence[int] | None,
                    sport: str | None = None) -> dict[str, Any]:
        ds = self.durations(durations)
        key = _CURVE_KEY[kind]
        sources: list[tuple[str, str]] = []
        if activity_id:
            if start or end:
                raise FitnessInputError("give activity_id, or from/to, not both")
            found = await self.store.get(owner.user_id, _activity_uuid(activity_id))
            if found is None:
                raise ActivityNotFound("no such activity")
            best = aligned(found.metrics.get(key), found.metrics.get("curve_durations"))
            where = f"activity {found.name or found.id}"
            sport = found.sport
            scope: dict[str, Any] = {"activity_id": str(found.id)}
            rows_n = 1
            day = local_day(found.start_at, found.utc_offset_s).isoformat()
            sources = [(str(found.id), day)] * len(an.STANDARD_DURATIONS)
        else:
            first, last = await self.period(owner, start, end, 365)
            sport = sport_name(sport, {"power": POWER_SPORT, "pace": "run", "hr": None}[kind])
            best, rows, curves = await self._period_curves(owner, kind, first, last, sport)
            where = f"{first} to {last}"
            scope = {"from": first.isoformat(), "to": last.isoformat()}
            rows_n = len(rows)
            sources = self._argbest(rows, curves)
        points: list[dict[str, Any]] = []
        for d in ds:
            v = float(best[_INDEX[d]])
            if not math.isfinite(v):
                continue
            aid, day = sources[_INDEX[d]]
            point: dict[str, Any] = {"duration_s": d}
            if kind == "power":
                point["watts"] = _r(v, 1)
            elif kind == "hr":
                point["bpm"] = _r(v, 1)
            else:
                point["speed_mps"] = _r(v, 3)
                point["pace_s_per_km"] = _r(1000.0 / v, 1) if v > 0 else None
            point.update(activity_id=aid, date=day)
            points.append(point)
        unit = {"power": "W", "hr": "bpm", "pace": "m/s"}[kind]
        value_key = {"power": "watts", "hr": "bpm", "pace": "speed_mps"}[kind]
        head = ", ".join(f"{_hms(p['duration_s'])} {p[value_key]}"
                         for p in points if p["duration_s"] in (5, 60, 300, 1200, 3600))
        summary = (f"{kind} curve ({sport or 'all sports'}), {where} ({rows_n} activities): "
                   f"{head or 'no data'}" + (f" {unit}" if head else ""))
        return {"summary": summary, "kind": kind, "sport": sport or "all", **scope,
                "activities": rows_n, "points": points}

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

    # -- running ----------------------------------------------------------------------------

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

    async def race_prediction(self, owner: Owner, distance_m: float | None,
                              time_s: float | None, targets: list[float]) -> dict[str, Any]:
        """Race times for ``targets`` from a race given, or, without one, from the
        person's own form: the best effort of the last 90 days with the highest VDOT
        (``_vdot``, as goal feasibility, the training summary and estimate_vo2max use),
        so a distance's prediction is the same in every answer."""
        if distance_m is not None or time_s is not None:
            if distance_m is None or time_s is None:
                raise FitnessInputError("give distance_m and time_s of a race, or neither "
                                        "to predict from your own best efforts")
            return predict_race(distance_m, time_s, targets)
        today = await self.today(owner)
        efforts = await self._efforts(owner, today - timedelta(days=89), today)
        vdot = self._vdot(efforts)
        if vdot is None:
            raise FitnessInputError("no run of a mile or more in the last 90 days to predict "
                                    "from: give distance_m and time_s of a recent race")
        name = vdot[1]
        seconds, activity_id, day = efforts[name]
        out = predict_race(an.BEST_EFFORT_DISTANCES[name], seconds, targets)
        out["summary"] = f"from your best {name} ({day}): {out['summary']}"
        out["basis"] = {"effort": name, "activity_id": activity_id, "date": day}
        return out

    async def best_efforts(self, owner: Owner, start: str | None, end: str | None
                           ) -> dict[str, Any]:
        first, last = await self.period(owner, start, end, 365)
        efforts = await self._efforts(owner, first, last)
        out = []
        for name, meters in an.BEST_EFFORT_DISTANCES.items():
            if name not in efforts:
                continue
            t, aid, day = efforts[name]
            out.append({"distance": name, "distance_m": meters, "time_s": _r(t, 1),
                        "time": _hms(t), "pace_s_per_km": _r(t / meters * 1000.0, 1),
                        "vdot": _r(an.vdot_from_race(meters, t), 1) if meters >= 1609 else None,
                        "activity_id": aid, "date": day})
        vdot = self._vdot(efforts)
        head = ", ".join(f"{e['distance']} {e['time']}" for e in out
                         if e["distance"] in ("1km", "5km", "10km", "half_marathon"))
        return {"summary": f"best efforts {first} to {last}: {head or 'none'}"
                           + (f"; VDOT {vdot[0]:.1f} ({vdot[1]})" if vdot else ""),
                "from": first.isoformat(), "to": last.isoformat(),
                "vdot": _r(vdot[0], 1) if vdot else None, "efforts": out}

    # -- physiology -------------------------------------------------------------------------

    async def critical_power(self, owner: Owner, start: str | None, end: str | None,
                             model: Literal["2p", "3p"], sport: str | None = None
                             ) -> dict[str, Any]:
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
                "to": last.isoformat(), "cp_watts": _r(fit.cp, 1),
                "w_prime_j": _r(fit.w_prime, 0), "r_squared": _r(fit.r_squared, 4),
                "p_max_watts": _r(fit.p_max, 0), "points": used,
                "window_s": list(window)}

    async def ftp_estimate(self, owner: Owner, start: str | None, end: str | None,
                           sport: str | None = None) -> dict[str, Any]:
        sport = sport_name(sport, POWER_SPORT)
        first, last = await self.period(owner, start, end, 90)
        best = await self.period_curve(owner, "power", first, last, sport)
        ds = np.array(an.STANDARD_DURATIONS, dtype=float)
        settings = SettingsHistory(await self.store.settings(owner.user_id)).on(last)
        current = for_sport(settings, sport)[0].get("ftp_watts")  # the sport's own FTP
        estimates: list[dict[str, Any]] = []
        p20, p1 = float(best[_INDEX[1200]]), float(best[_INDEX[60]])
        if math.isfinite(p20):
            estimates.append({"method": "20min", "watts": _r(an.ftp_from_20min(p20), 1),
                              "basis": f"95 % of the best 20 min ({p20:.0f} W)"})
        cp = an.critical_power_2p(ds, best, 180.0, 1200.0)
        if cp is not None:
            estimates.append({"method": "cp", "watts": _r(cp.cp, 1),
                              "basis": f"2-parameter CP from 3-20 min bests, R^2 "
                                       f"{cp.r_squared:.3f}"})
        if math.isfinite(p1):
            estimates.append({"method": "ramp", "watts": _r(an.ftp_from_ramp(p1), 1),
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
                "estimate_watts": _r(detection.estimate, 1) if detection else None,
                "source": detection.source if detection else None,
                "current_ftp_watts": current,
                "improved": detection.improved if detection else False,
                "estimates": estimates}

    async def w_prime_balance(self, owner: Owner, activity_id: str, cp: float | None,
                              w_prime: float | None, model: Literal["skiba2012", "skiba2015"],
                              max_points: int) -> dict[str, Any]:
        found = await self.store.get(owner.user_id, _activity_uuid(activity_id))
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
        out: dict[str, Any] = {
            "activity_id": str(found.id), "model": model, "cp_watts": _r(cp_f, 1),
            "w_prime_j": _r(w_f, 0), "basis": basis,
            "min_w_prime_bal_j": _r(float(bal[low]), 0), "min_at_s": low,
            "seconds_below_25pct": int(below), "series": series}
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
            out["warning"] = warning
        return {"summary": summary, **out}

    async def zone_distribution(self, owner: Owner, start: str | None, end: str | None,
                                kind: Literal["power", "hr", "pace"], sport: str | None = None
                                ) -> dict[str, Any]:
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
                "three_zone": {"low": _r(dist.zone1, 3), "moderate": _r(dist.zone2, 3),
                               "high": _r(dist.zone3, 3),
                               "polarization_index": _r(dist.polarization_index, 3)},
                "distribution": shape}

    async def _no_zones(self, owner: Owner, kind: Literal["power", "hr", "pace"],
                        first: date, last: date) -> dict[str, Any]:
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
                "three_zone": {"low": None, "moderate": None, "high": None,
                               "polarization_index": None},
                "distribution": None, "missing": missing}

    async def vo2max(self, owner: Owner) -> dict[str, Any]:
        day = await self.today(owner)
        first = day - timedelta(days=89)
        best = await self.period_curve(owner, "power", first, day, POWER_SPORT)
        weight = SettingsHistory(await self.store.settings(owner.user_id)).on(day).get(
            "weight_kg")
        out: dict[str, Any] = {"from": first.isoformat(), "to": day.isoformat()}
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
        out["summary"] = ("VO2max estimates (ml/kg/min), 90 days: " + ", ".join(parts)
                          if parts else "no 5 min power with a weight, and no run best "
                          "efforts of a mile or more, in the last 90 days")
        return out

    # -- activities -------------------------------------------------------------------------

    _HEAD: Final = ("normalized_power", "intensity_factor", "tss", "load", "load_method",
                    "variability_index", "efficiency_factor", "aerobic_decoupling_pct",
                    "avg_power", "avg_hr", "max_hr", "work_kj", "trimp", "hr_tss", "rtss",
                    "normalized_graded_speed")

    async def analyze(self, owner: Owner, activity_id: str) -> dict[str, Any]:
        found = await self.store.get(owner.user_id, _activity_uuid(activity_id))
        if found is None:
            raise ActivityNotFound("no such activity")
        m = found.metrics
        metrics = {k: _r(m.get(k), 3) if isinstance(m.get(k), float) else m.get(k)
                   for k in self._HEAD if m.get(k) is not None}
        zones: dict[str, Any] = {}
        for kind, key in (("power", "time_in_power_zones"), ("hr", "time_in_hr_zones"),
                          ("pace", "time_in_pace_zones")):
            if m.get(key):
                zones[kind] = [_r(s, 0) for s in m[key]]
        peaks: dict[str, Any] = {}
        for kind in ("power", "hr", "pace"):
            c = aligned(m.get(_CURVE_KEY[kind]), m.get("curve_durations"))
            for d in (5, 60, 300, 1200, 3600):
                if math.isfinite(c[_INDEX[d]]):
                    peaks[f"{kind}_{d}s"] = _r(float(c[_INDEX[d]]), 1 if kind != "pace" else 3)
        ftp = None
        if m.get("power_zone_bounds"):
            ftp = _r(m["power_zone_bounds"][1] / an.COGGAN_POWER_ZONES[1], 0)
        day = local_day(found.start_at, found.utc_offset_s)
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
                "ftp_used_watts": ftp, "best_efforts": {
                    k: _r(v, 1) for k, v in possible_efforts(m.get("best_efforts")).items()},
                "recomputing": stale}

    async def compare_activities(self, owner: Owner, ids: Sequence[str]) -> dict[str, Any]:
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
                "activities": [{k: it[k] for k in ("activity_id", "name", "sport", "date",
                                                   "elapsed_s", "moving_s",
                                                   "distance_m")}
                               for it in items],
                "metrics": table, "peaks": peaks}

    async def period_stats(self, owner: Owner, first: date, last: date) -> dict[str, Any]:
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
            "power_5min": _r(float(best[_INDEX[300]]), 0),
            "power_20min": _r(float(best[_INDEX[1200]]), 0),
            "by_sport": totals,
        }

    async def period_summary(self, owner: Owner, start: str | None, end: str | None
                             ) -> dict[str, Any]:
        first, last = await self.period(owner, start, end, 28)
        stats = await self.period_stats(owner, first, last)
        return {"summary": f"{first} to {last}: {stats['activities']} activities, "
                           f"{stats['moving_hours']} h moving ({stats['elapsed_hours']} h "
                           f"elapsed), {stats['km']} km, load {stats['load']}",
                **stats}

    async def compare_periods(self, owner: Owner, a: tuple[str | None, str | None],
                              b: tuple[str | None, str | None]) -> dict[str, Any]:
        a1, a2 = await self.period(owner, a[0], a[1], 28)
        b1, b2 = await self.period(owner, b[0], b[1], 28)
        pa, pb = await self.period_stats(owner, a1, a2), await self.period_stats(owner, b1, b2)
        change: dict[str, float | None] = {}
        for k in ("activities", "moving_hours", "km", "load", "load_per_week", "mean_ctl",
                  "power_5min", "power_20min"):
            x, y = pa.get(k), pb.get(k)
            change[k] = _r(y - x, 1) if x is not None and y is not None else None
        return {"summary": f"B vs A: load/week {pb['load_per_week']} vs {pa['load_per_week']}"
                           f", moving hours {pb['moving_hours']} vs {pa['moving_hours']}, "
                           f"mean CTL {pb['mean_ctl']} vs {pa['mean_ctl']}",
                "a": pa, "b": pb, "change": change}

    # -- patterns ---------------------------------------------------------------------------

    async def patterns(self, owner: Owner, weeks: int) -> dict[str, Any]:
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
                f"{t.p_value:.3f})", slope_per_week=_r(t.slope_per_day, 2),
                p_value=_r(t.p_value, 4), direction=t.direction)
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
                slope_per_week=_r(th.slope_per_day, 3), p_value=_r(th.p_value, 4),
                direction=th.direction)
        for sport, arr in sorted(longest.items()):
            tl = an.trend(arr)
            if tl is not None:
                add(f"long_{sport}_progression", f"longest {sport} per week {tl.direction} "
                    f"({tl.slope_per_day * 60:+.1f} min per week, p = {tl.p_value:.3f})",
                    slope_min_per_week=_r(tl.slope_per_day * 60, 2), p_value=_r(tl.p_value, 4),
                    direction=tl.direction)
        kinds: tuple[Literal["power", "hr"], ...] = ("power", "hr")
        for kind in kinds:
            dist = await self.zone_distribution(owner, first.isoformat(), last.isoformat(),
                                                kind)
            if dist["distribution"] is not None:
                tz = dist["three_zone"]
                add("intensity_distribution", f"{dist['distribution']} by {kind}: low "
                    f"{tz['low']:.0%}, moderate {tz['moderate']:.0%}, high {tz['high']:.0%}"
                    + ("" if tz["low"] >= 0.75 else " (less than the 75-80 % easy of "
                       "Seiler's 80/20)"), basis=kind, **tz)
                break
        active_weeks = int(np.sum(weekly > 0))
        add("consistency", f"trained in {active_weeks} of {weeks} weeks; "
            f"{len(rows) / weeks:.1f} sessions per week", active_weeks=active_weeks,
            sessions_per_week=_r(len(rows) / weeks, 2))
        if days:
            day, count = days.most_common(1)[0]
            add("favourite_day", f"most sessions on {day} ({count})", day=day, count=count)
        summary = "; ".join(p["finding"] for p in found[:3]) or "no training in the period"
        return {"summary": f"{first} to {last}: {summary}", "from": first.isoformat(),
                "to": last.isoformat(), "patterns": found}

    # -- goals ------------------------------------------------------------------------------

    async def set_goal(self, owner: Owner, *, kind: str, target_date: str | None,
                       name: str | None, sport: str | None, distance_m: float | None,
                       time_s: float | None, value: float | None) -> dict[str, Any]:
        if kind not in GOAL_KINDS:
            raise FitnessInputError(f"kind must be one of {', '.join(GOAL_KINDS)}")
        day = _inputs.day(target_date, "date")
        if kind == "race" and (distance_m is None or time_s is None):
            raise FitnessInputError("a race goal needs distance_m and time_s")
        if kind != "race" and value is None:
            raise FitnessInputError(f"a {kind} goal needs value")
        if day is not None and day < await self.today(owner):
            raise FitnessInputError("the goal's date is in the past")
        if len(await self.store.goals(owner.user_id)) >= MAX_GOALS:
            raise FitnessInputError(f"at most {MAX_GOALS} goals: delete one first")
        goal = Goal(uuid.uuid4(), kind, name, day, sport or ("run" if kind == "race" else None),
                    distance_m if kind == "race" else None, time_s if kind == "race" else None,
                    value if kind != "race" else None, self.clock())
        await self.store.add_goal(owner, goal)
        return {"summary": f"goal set: {goal_line(goal)}", "goal": goal_json(goal)}

    async def goals(self, owner: Owner) -> dict[str, Any]:
        goals = await self.store.goals(owner.user_id)
        return {"summary": f"{len(goals)} goals" + (": " + "; ".join(
            goal_line(g) for g in goals[:5]) if goals else ""),
                "goals": [goal_json(g) for g in goals]}

    async def delete_goal(self, owner: Owner, goal_id: str) -> dict[str, Any]:
        if not await self.store.delete_goal(owner.user_id, _goal_uuid(goal_id)):
            raise GoalNotFound("no such goal")
        return {"summary": "goal deleted", "deleted": True, "goal_id": goal_id}

    async def _goal(self, owner: Owner, goal_id: str) -> Goal:
        ident = _goal_uuid(goal_id)
        for g in await self.store.goals(owner.user_id):
            if g.id == ident:
                return g
        raise GoalNotFound("no such goal")

    async def goal_feasibility(self, owner: Owner, goal_id: str) -> dict[str, Any]:
        """Feasibility models (stated in each answer's ``model``):

        - race: the VDOT the goal time needs (Daniels-Gilbert) against the best VDOT of the
          last 90 days' best efforts; VDOT gains of about 1 point per 4-6 weeks taken as
          attainable (our reading of Daniels' advice to raise training VDOT by one point
          after 4-6 weeks of training at it, Daniels' Running Formula ch. 5).
        - ftp: target against the current FTP (setting, else the 90-day estimate); gains
          up to 0.5 %/week likely, 1 %/week possible (our assumption from 8-12 week
          training studies reporting 5-10 %).
        - weight: 0.5-1 % of body weight per week (ACSM: 0.5-1 kg/week for most adults).
        - volume: weekly hours up by at most 10 % a week (a rule of thumb, not evidence).
        """
        goal = await self._goal(owner, goal_id)
        today = await self.today(owner)
        weeks = ((goal.target_date - today).days / 7.0) if goal.target_date else 12.0
        weeks = max(weeks, 0.0)
        out: dict[str, Any] = {"goal": goal_json(goal), "weeks_left": _r(weeks, 1)}
        if goal.kind == "race":
            assert goal.distance_m is not None
            assert goal.time_s is not None
            need = an.vdot_from_race(goal.distance_m, goal.time_s)
            vdot = self._vdot(await self._efforts(owner, today - timedelta(days=89), today))
            out["model"] = ("VDOT needed vs best recent VDOT; +1 VDOT per 4 weeks possible, "
                            "per 6 weeks likely (after Daniels)")
            out["required"] = _r(need, 1)
            if vdot is None:
                verdict, current = "unknown", None
                detail = "no run of a mile or more in the last 90 days to rate current form"
            else:
                current = vdot[0]
                gap = need - current
                now_time = an.race_time_for_vdot(current, goal.distance_m)
                out["predicted_time_s"] = _r(now_time, 0)
                verdict = ("achieved" if gap <= 0 else "likely" if gap <= weeks / 6
                           else "possible" if gap <= weeks / 4 else "unlikely")
                detail = (f"needs VDOT {need:.1f}, current {current:.1f} (now "
                          f"{_hms(now_time)} predicted); gap {max(gap, 0):.1f} in "
                          f"{weeks:.0f} weeks")
            out["current"] = _r(current, 1)
        elif goal.kind == "ftp":
            assert goal.value is not None
            settings = SettingsHistory(await self.store.settings(owner.user_id)).on(today)
            current_f = settings.get("ftp_watts")
            if current_f is None:
                try:
                    est = await self.ftp_estimate(owner, None, None, POWER_SPORT)
                    current_f = est["estimate_watts"]
                except FitnessInputError:
                    current_f = None
            out["model"] = "FTP gain per week: up to 0.5 % likely, 1 % possible (assumption)"
            out["required"] = goal.value
            out["current"] = current_f
            if current_f is None:
                verdict, detail = "unknown", "no FTP set and no power data to estimate it"
            else:
                rate = (goal.value / current_f - 1.0) / max(weeks, 1e-9)
                verdict = ("achieved" if goal.value <= current_f else "likely"
                           if rate <= 0.005 else "possible" if rate <= 0.01 else "unlikely")
                detail = (f"{current_f:.0f} -> {goal.value:.0f} W: {100 * rate:.2f} % per week "
                          f"over {weeks:.0f} weeks")
        elif goal.kind == "weight":
            assert goal.value is not None
            health = await self._health(owner, today - timedelta(days=30), today)
            weights = [h["weight_kg"] for _, h in sorted(health.items()) if "weight_kg" in h]
            current_w = weights[-1] if weights else SettingsHistory(
                await self.store.settings(owner.user_id)).on(today).get("weight_kg")
            out["model"] = "weight change of 0.5-1 % of body weight per week (ACSM)"
            out["required"], out["current"] = goal.value, current_w
            if current_w is None:
                verdict, detail = "unknown", "no weight recorded"
            else:
                rate = abs(current_w - goal.value) / current_w / max(weeks, 1e-9)
                verdict = ("achieved" if abs(current_w - goal.value) < 0.5 else "likely"
                           if rate <= 0.005 else "possible" if rate <= 0.01 else "unlikely")
                detail = (f"{current_w:.1f} -> {goal.value:.1f} kg: {100 * rate:.2f} % of body "
                          f"weight per week")
        else:
            assert goal.value is not None
            rows = await self._rows(owner, today - timedelta(days=27), today)
            current_h = sum(moving_seconds(r) for r in rows) / 3600.0 / 4.0
            out["model"] = ("weekly moving hours up by at most 10 % per week (rule of "
                            "thumb)")
            out["required"], out["current"] = goal.value, _r(current_h, 2)
            if current_h <= 0:
                verdict, detail = "unknown", "no training in the last 4 weeks"
            else:
                need_w = (math.log(goal.value / current_h) / math.log(1.1)
                          if goal.value > current_h else 0.0)
                verdict = ("achieved" if need_w == 0 else "likely" if need_w <= weeks * 0.7
                           else "possible" if need_w <= weeks else "unlikely")
                detail = (f"{current_h:.1f} -> {goal.value:.1f} h/week moving needs "
                          f"{need_w:.0f} weeks at +10 %/week; {weeks:.0f} left")
        out["verdict"] = verdict
        out["detail"] = detail
        out["summary"] = f"{goal_line(goal)}: {verdict}; {detail}"
        return out

    # -- planning ---------------------------------------------------------------------------

    async def suggest_week(self, owner: Owner, goal_id: str | None, sport: str | None
                           ) -> dict[str, Any]:
        """A rule-based week (``docs/analytics.md``, "Planning"): weekly load from CTL
        (the constant daily load that moves CTL by the chosen ramp in 7 days), adjusted for
        form, readiness and a near race; 80/20 easy/hard by sessions; durations from load
        at each session's intensity factor (TSS per hour = 100 IF^2)."""
        today = await self.today(owner)
        goal = await self._goal(owner, goal_id) if goal_id else None
        ctl, atl, _ = await self.form(owner, today)
        # The week ahead starts after today's training: TSB of tomorrow (CTL - ATL of
        # today, ``form``), named so; every "tsb" elsewhere is the day's own.
        form = ctl - atl
        score = (await self.readiness(owner, today.isoformat()))["score"]
        ready = 50 if score is None else score  # nothing recorded: no reason to rest
        rows = await self._rows(owner, today - timedelta(days=27), today)
        if sport is None:
            sport = (goal.sport if goal and goal.sport else
                     Counter(r.sport for r in rows).most_common(1)[0][0] if rows else "run")
        # Only a race is an event to taper for; an FTP, weight or volume goal is a target
        # the ordinary weeks work towards, whatever its date.
        days_to_goal = ((goal.target_date - today).days
                        if goal and goal.kind == "race" and goal.target_date else None)
        k = math.exp(-1.0 / 42.0) ** 7
        if ctl < 15:
            phase, weekly = "start", 250.0
            why = "little recent training: a starter week (about 250 load)"
        elif days_to_goal is not None and 0 <= days_to_goal <= 7:
            phase, weekly = "race_week", 0.5 * ctl * 7
            why = (f"race on {today + timedelta(days=days_to_goal)}: half the usual load, "
                   "easy days and one short tempo, rest two days before, an opener the day "
                   "before, recovery after")
        elif days_to_goal is not None and days_to_goal <= 21:
            phase, weekly = "taper", 0.7 * ctl * 7
            why = "race within 3 weeks: taper to 70 % of the usual load"
        elif form < -25 or ready < 35:
            phase, weekly = "recovery", 0.6 * ctl * 7
            why = (f"TSB tomorrow {_signed(form)} / readiness {_score(score)}: a recovery "
                   "week at 60 % load")
        elif form < -10:
            phase, weekly = "hold", ctl * 7
            why = f"TSB tomorrow {_signed(form)}: hold CTL (load = CTL x 7)"
        else:
            ramp = min(5.0, max(2.0, 0.05 * ctl))
            phase = "build"
            weekly = 7 * (ctl + ramp - ctl * k) / (1 - k)
            why = (f"TSB tomorrow {_signed(form)}, readiness {_score(score)}: build CTL "
                   f"by {ramp:.1f} this week")
        settings = SettingsHistory(await self.store.settings(owner.user_id)).on(today)
        plan = [("rest", 0.0, None), ("intervals", 0.16, 0.95), ("easy", 0.12, 0.65),
                ("tempo", 0.16, 0.85), ("easy", 0.12, 0.65), ("long", 0.30, 0.70),
                ("easy", 0.14, 0.65)]
        if phase in ("recovery", "start"):
            plan = [("rest", 0.0, None), ("easy", 0.25, 0.65), ("rest", 0.0, None),
                    ("easy", 0.25, 0.65), ("rest", 0.0, None), ("long", 0.3, 0.68),
                    ("easy", 0.2, 0.6)]
        monday = today + timedelta(days=(7 - today.weekday()) % 7)
        sessions: list[dict[str, Any]] = []
        if phase == "race_week":
            assert goal is not None
            assert days_to_goal is not None
            monday = today  # race week starts today, not next Monday
            sessions = _race_week(today, days_to_goal, weekly, goal, sport, settings)
        else:
            for i, (kind, share, intensity) in enumerate(plan):
                day = monday + timedelta(days=i)
                if intensity is None:
                    sessions.append(_rest(day))
                    continue
                load = weekly * share
                sessions.append(_session(day, kind, sport, load,
                                         load / (100 * intensity**2) * 60,
                                         _target(kind, sport, settings)))
        hard = sum(s["duration_min"] or 0 for s in sessions
                   if s["type"] in ("intervals", "tempo", "race"))
        total = sum(s["duration_min"] or 0 for s in sessions)
        return {"summary": f"{phase} week from {monday}: load {weekly:.0f} over "
                           f"{sum(1 for s in sessions if s['type'] != 'rest')} sessions, "
                           f"{total / 60:.1f} h; {why}",
                "phase": phase, "week_of": monday.isoformat(), "target_load": _r(weekly, 0),
                "ctl": _r(ctl), "tsb_tomorrow": _r(form), "readiness": score,
                "easy_share_of_time": _r(1 - hard / total, 2) if total else None,
                "rationale": why, "sessions": sessions,
                "goal": goal_json(goal) if goal else None}


def _rest(day: date) -> dict[str, Any]:
    return {"date": day.isoformat(), "day": day.strftime("%A"), "type": "rest",
            "sport": None, "duration_min": 0, "load": 0.0, "target": "rest"}


def _session(day: date, kind: str, sport: str | None, load: float | None,
             minutes: float | None, target: str) -> dict[str, Any]:
    """A session of ``minutes`` (20 min to 5 h, to the nearest 5 min) and ``load``."""
    duration = (None if minutes is None
                else round(max(20.0, min(300.0, minutes)) / 5) * 5)
    return {"date": day.isoformat(), "day": day.strftime("%A"), "type": kind,
            "sport": sport, "duration_min": duration, "load": _r(load, 0), "target": target}


OPENER_MIN, OPENER_IF = 20.0, 0.65
RECOVERY_MIN, RECOVERY_IF = 30.0, 0.60


def _race_target(goal: Goal, sport: str | None) -> str:
    """Race day's target: the distance, the goal time and its pace (a race goal is set
    with a distance and a time; "race" alone if one was ever stored without)."""
    if not goal.distance_m:
        return "race"
    text = f"race: {goal.distance_m / 1000:g} km"
    if goal.time_s:
        speed = goal.time_s / (goal.distance_m / 1000)  # s per km
        pace = (f"{3600 / speed:.1f} km/h" if sport == "ride" else
                f"{_hms(speed / 10)}/100 m" if sport == "swim" else _pace(speed))
        text += f", goal {_hms(goal.time_s)} ({pace})"
    return text


def _race_week(today: date, days_to_race: int, weekly: float, goal: Goal, sport: str,
               settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Race week (docs/analytics.md, "Planning"), after Friel's pre-race week: today to
    the race and on to today + 6 (the race day itself when it is 7 days out). The race
    (R) at the goal's time, load = hours x 100 (IF 1.0); R-1 an opener, 20 min easy with
    3-4 x 1 min at race pace (IF 0.65); R-2 rest; the days before share what is left of
    the week's load (floored at 0) as easy sessions, one of them (R-4) a short tempo when
    3 or more days are free; after the race, R+1 rest and easy 30 min recoveries (IF 0.6).
    No long session."""
    race = today + timedelta(days=days_to_race)
    race_sport = goal.sport or sport
    race_min = None if not goal.time_s else round(goal.time_s / 300) * 5
    race_load = None if race_min is None else race_min / 60 * 100
    opener_load = OPENER_MIN / 60 * 100 * OPENER_IF**2
    budget = weekly - (race_load or 0.0) - (opener_load if days_to_race >= 1 else 0.0)
    free = max(0, days_to_race - 2)  # days before R-2
    each = max(0.0, budget) / free if free else 0.0
    out: list[dict[str, Any]] = []
    for i in range(max(7, days_to_race + 1)):
        day = today + timedelta(days=i)
        to_race = (race - day).days
        if to_race == 0:
            out.append(_session(day, "race", race_sport, race_load, race_min,
                                _race_target(goal, race_sport)))
        elif to_race == 1:
            out.append(_session(day, "opener", sport, opener_load, OPENER_MIN,
                                "opener: 20 min easy with 3-4 x 1 min at race pace"))
        elif to_race == 2 or to_race == -1 or (to_race > 2 and each <= 0):
            out.append(_rest(day))
        elif to_race > 2:
            kind = "tempo" if to_race == 4 and free >= 3 else "easy"
            f = 0.85 if kind == "tempo" else 0.65
            out.append(_session(day, kind, sport, each, each / (100 * f * f) * 60,
                                _target(kind, sport, settings)))
        else:
            load = RECOVERY_MIN / 60 * 100 * RECOVERY_IF**2
            out.append(_session(day, "easy", sport, load, RECOVERY_MIN,
                                "recovery: " + _target("easy", sport, settings)))
    return out


def _target(kind: str, sport: str, settings: dict[str, Any]) -> str:
    """The session's target as zones of the athlete's own settings where known."""
    bands = {"easy": (0.56, 0.75, "Z2 endurance"), "long": (0.56, 0.75, "Z2 endurance"),
             "tempo": (0.88, 0.94, "sweet spot / tempo"),
             "intervals": (1.06, 1.20, "Z5 VO2max intervals, 4-6 x 3-5 min")}
    lo, hi, label = bands[kind]
    ftp = settings.get("ftp_watts")
    pace = settings.get("threshold_pace_s_per_km")
    lthr = for_sport(settings, sport)[0].get("lthr_bpm")  # the sport's, else the general
    if sport == "ride" and ftp:
        return f"{label}: {lo * ftp:.0f}-{hi * ftp:.0f} W"
    if sport == "run" and pace:
        # The athlete's own pace zones (Friel, fractions of threshold pace): easy and long
        # in zone 2 (114-129 %); tempo at 88-94 % of threshold speed (106-114 % of pace,
        # zone 3); intervals at 103-111 % of threshold speed (zone 5b, 90-97 %).
        if kind in ("easy", "long"):
            slowest, fastest = an.FRIEL_PACE_ZONES[1], an.FRIEL_PACE_ZONES[2]
            return f"{label}: {_pace(pace * fastest)}-{_pace(pace * slowest)}"
        if kind == "intervals":
            lo, hi = 1.03, 1.11
        return f"{label}: {_pace(pace / hi)}-{_pace(pace / lo)}"
    if lthr:
        hr = {"easy": (0.81, 0.89), "long": (0.81, 0.89), "tempo": (0.90, 0.96),
              "intervals": (1.00, 1.06)}[kind]
        return f"{label}: {hr[0] * lthr:.0f}-{hr[1] * lthr:.0f} bpm"
    return f"{label} (set ftp_watts, threshold_pace_s_per_km or lthr_bpm for numbers)"


def goal_json(goal: Goal) -> dict[str, Any]:
    return {"id": str(goal.id), "kind": goal.kind, "name": goal.name,
            "date": goal.target_date.isoformat() if goal.target_date else None,
            "sport": goal.sport, "distance_m": goal.distance_m, "time_s": goal.time_s,
            "value": goal.value,
            "created_at": goal.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}


def goal_line(goal: Goal) -> str:
    when = f" by {goal.target_date}" if goal.target_date else ""
    if goal.kind == "race" and goal.distance_m and goal.time_s:
        return f"{goal.name or 'race'} {goal.distance_m / 1000:g} km in {_hms(goal.time_s)}{when}"
    unit = {"ftp": "W FTP", "weight": "kg", "volume": "h/week"}.get(goal.kind, "")
    return f"{goal.name or goal.kind} {goal.value:g} {unit}{when}"


def _activity_uuid(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise ActivityNotFound("no such activity") from None


def _goal_uuid(text: str) -> uuid.UUID:
    try:
        return uuid.UUID(text)
    except ValueError:
        raise GoalNotFound("no such goal") from None


__all__ = ["DEFAULT_CURVE_DURATIONS", "AnalysisService", "GoalNotFound", "aligned",
           "coggan_3zone", "goal_json", "local_day", "possible_efforts"]
