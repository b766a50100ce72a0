"""Goals: set, list, delete and rate their feasibility (the tools of
``pacekeeper.tools.goals``); an FTP goal reads the FTP estimate."""

from __future__ import annotations

import math
import uuid
from datetime import timedelta
from typing import Any, Final, Literal, NotRequired

from typing_extensions import TypedDict

from pacekeeper.fitness import _inputs
from pacekeeper.fitness import analytics as an
from pacekeeper.fitness._errors import FitnessInputError
from pacekeeper.fitness._records import Goal, Owner
from pacekeeper.fitness._settings import SettingsHistory
from pacekeeper.fitness.analysis._common import (
    GOAL_KINDS,
    GOAL_UNITS,
    MAX_GOALS,
    POWER_SPORT,
    GoalNotFound,
    _goal_uuid,
    _hms,
    _r,
    goal_json,
    goal_line,
    moving_seconds,
)
from pacekeeper.fitness.analysis._physiology import PhysiologyAnalysis
from pacekeeper.fitness.analysis._results import Feasibility, GoalDeleted, GoalList, GoalResult

Verdict = Literal["achieved", "likely", "possible", "unlikely", "unknown"]
FEASIBILITY_MODELS: Final = {
    "race": "VDOT needed vs best recent VDOT; +1 VDOT per 4 weeks possible, per 6 weeks "
            "likely (after Daniels)",
    "ftp": "FTP gain per week: up to 0.5 % likely, 1 % possible (assumption)",
    "weight": "weight change of 0.5-1 % of body weight per week (ACSM)",
    "volume": "weekly moving hours up by at most 10 % per week (rule of thumb)",
}


class FeasibilityHead(TypedDict):
    """What a feasibility answer says before its verdict (each kind adds its figures)."""

    goal: dict[str, Any]
    weeks_left: float | None
    model: str
    unit: NotRequired[str]  # of required and current (GOAL_UNITS)
    required: NotRequired[Any]  # the goal's own figure, as stored
    predicted_time_s: NotRequired[float | None]
    current: NotRequired[Any]  # a setting's figure as stored, or a rounded estimate


class GoalAnalysis(PhysiologyAnalysis):
    async def set_goal(self, owner: Owner, *, kind: str, target_date: str | None,
                       name: str | None, sport: str | None, distance_m: float | None,
                       time_s: float | None, value: float | None) -> GoalResult:
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

    async def goals(self, owner: Owner) -> GoalList:
        goals = await self.store.goals(owner.user_id)
        return {"summary": f"{len(goals)} goals" + (": " + "; ".join(
            goal_line(g) for g in goals[:5]) if goals else ""),
                "goals": [goal_json(g) for g in goals]}

    async def delete_goal(self, owner: Owner, goal_id: str) -> GoalDeleted:
        if not await self.store.delete_goal(owner.user_id, _goal_uuid(goal_id)):
            raise GoalNotFound("no such goal")
        return {"summary": "goal deleted", "deleted": True, "goal_id": goal_id}

    async def _goal(self, owner: Owner, goal_id: str) -> Goal:
        ident = _goal_uuid(goal_id)
        for g in await self.store.goals(owner.user_id):
            if g.id == ident:
                return g
        raise GoalNotFound("no such goal")

    async def goal_feasibility(self, owner: Owner, goal_id: str) -> Feasibility:
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
        # Every answer names its model first: its kind's (volume's for any other kind).
        model = FEASIBILITY_MODELS.get(goal.kind, FEASIBILITY_MODELS["volume"])
        out: FeasibilityHead = {"goal": goal_json(goal), "weeks_left": _r(weeks, 1),
                                "model": model, "unit": GOAL_UNITS.get(goal.kind, "")}
        verdict: Verdict
        if goal.kind == "race":
            assert goal.distance_m is not None
            assert goal.time_s is not None
            need = an.vdot_from_race(goal.distance_m, goal.time_s)
            vdot = self._vdot(await self._efforts(owner, today - timedelta(days=89), today))
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
        return {**out, "verdict": verdict, "detail": detail,
                "summary": f"{goal_line(goal)}: {verdict}; {detail}"}



__all__ = ["GoalAnalysis"]
