"""Mean-maximal curves (power, heart rate, pace) of one activity or a period, merged from
the curves stored per activity, and run best efforts."""

from __future__ import annotations

from typing import Annotated

from mcpcast import Param, tool
from pacekeeper.fitness.analysis import BestEfforts, HrCurve, PaceCurve, PowerCurve
from pacekeeper.owner import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup
from pacekeeper.tools._base import READ, READ_ONLY
from pacekeeper.tools._params import (
    AnySport,
    Durations,
    From,
    OptionalActivity,
    PowerSport,
    To,
)
from pacekeeper.tools._shapes import SportName
from pacekeeper.tools.apps import CURVE, ui_meta


class CurveTools(AnalysisGroup):
    @tool(
        name="get_power_curve",
        meta=ui_meta(CURVE),
        description="Best mean power W per duration, each with its activity and day: one activity, "
                    "or a period (default 365 days) of one sport (default ride).",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_power_curve(self, owner: Owner, activity_id: OptionalActivity = None,
                              from_date: From = None, to_date: To = None,
                              durations_s: Durations = None,
                              sport: PowerSport = "ride") -> PowerCurve:
        return await self.answer(owner, self.analysis().curve(
            owner, "power", activity_id=activity_id, start=from_date, end=to_date,
            durations=durations_s, sport=sport))

    @tool(
        name="get_hr_curve",
        meta=ui_meta(CURVE),
        description="Highest mean heart rate bpm per duration, each with its activity and day: one "
                    "activity, or a period (default 365 days) of one sport (default all).",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_hr_curve(
        self, owner: Owner, activity_id: OptionalActivity = None, from_date: From = None,
        to_date: To = None, durations_s: Durations = None,
        sport: AnySport = None,
    ) -> HrCurve:
        return await self.answer(owner, self.analysis().curve(
            owner, "hr", activity_id=activity_id, start=from_date, end=to_date,
            durations=durations_s, sport=sport))

    @tool(
        name="get_pace_curve",
        meta=ui_meta(CURVE),
        description="Best mean speed m/s and pace s/km per duration, each with its activity and "
                    "day: one activity, or a period (default 365 days) of one sport (default run).",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_pace_curve(
        self, owner: Owner, activity_id: OptionalActivity = None, from_date: From = None,
        to_date: To = None, durations_s: Durations = None,
        sport: Annotated[SportName | None, Param(
            description="Default run.")] = None,
    ) -> PaceCurve:
        return await self.answer(owner, self.analysis().curve(
            owner, "pace", activity_id=activity_id, start=from_date, end=to_date,
            durations=durations_s, sport=sport))

    @tool(
        name="get_best_efforts",
        description="Fastest run times from 400 m to the marathon in a period (default 365 days), "
                    "with pace and, from a mile up, Daniels VDOT.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_best_efforts(self, owner: Owner, from_date: From = None,
                               to_date: To = None) -> BestEfforts:
        return await self.answer(owner, self.analysis().best_efforts(owner, from_date, to_date))


__all__ = ["CurveTools"]
