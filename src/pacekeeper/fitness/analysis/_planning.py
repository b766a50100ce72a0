"""Planning: a suggested training week (the tool of ``pacekeeper.tools.planning``),
from form and readiness (load) and a goal (goals)."""

from __future__ import annotations

import math
from collections import Counter
from datetime import date, timedelta
from typing import Any

from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._records import Goal, Owner
from pacekeeper.fitness._settings import SettingsHistory, for_sport
from pacekeeper.fitness.analysis._common import (
    _hms,
    _pace,
    _r,
    _score,
    _signed,
    goal_json,
)
from pacekeeper.fitness.analysis._goals import GoalAnalysis
from pacekeeper.fitness.analysis._load import LoadAnalysis
from pacekeeper.fitness.analysis._results import TrainingWeek


class PlanningAnalysis(LoadAnalysis, GoalAnalysis):
    async def suggest_week(self, owner: Owner, goal_id: str | None, sport: str | None
                           ) -> TrainingWeek:
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
                "easy_time_share": _r(1 - hard / total, 2) if total else None,
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


def _race_target(goal: Goal, sport: str | None, units: str | None = None) -> str:
    """Race day's target: the distance, the goal time and its pace (a race goal is set
    with a distance and a time; "race" alone if one was ever stored without)."""
    if not goal.distance_m:
        return "race"
    text = f"race: {goal.distance_m / 1000:g} km"
    if goal.time_s:
        speed = goal.time_s / (goal.distance_m / 1000)  # s per km
        pace = (f"{3600 / speed:.1f} km/h" if sport == "ride" else
                f"{_hms(speed / 10)}/100 m" if sport == "swim"
                else _pace(speed, units or "metric"))
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
                                _race_target(goal, race_sport, settings.get("units"))))
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
    units = settings.get("units") or "metric"  # a run's pace per km or per mile
    if sport == "ride" and ftp:
        return f"{label}: {lo * ftp:.0f}-{hi * ftp:.0f} W"
    if sport == "run" and pace:
        # The athlete's own pace zones (Friel, fractions of threshold pace): easy and long
        # in zone 2 (114-129 %); tempo at 88-94 % of threshold speed (106-114 % of pace,
        # zone 3); intervals at 103-111 % of threshold speed (zone 5b, 90-97 %).
        if kind in ("easy", "long"):
            slowest, fastest = an.FRIEL_PACE_ZONES[1], an.FRIEL_PACE_ZONES[2]
            return f"{label}: {_pace(pace * fastest, units)}-{_pace(pace * slowest, units)}"
        if kind == "intervals":
            lo, hi = 1.03, 1.11
        return f"{label}: {_pace(pace / hi, units)}-{_pace(pace / lo, units)}"
    if lthr:
        hr = {"easy": (0.81, 0.89), "long": (0.81, 0.89), "tempo": (0.90, 0.96),
              "intervals": (1.00, 1.06)}[kind]
        return f"{label}: {hr[0] * lthr:.0f}-{hr[1] * lthr:.0f} bpm"
    return f"{label} (set ftp_watts, threshold_pace_s_per_km or lthr_bpm for numbers)"


__all__ = ["PlanningAnalysis"]
