"""Mean-maximal curves (power, heart rate, pace) of one activity or a period, merged from
the curves stored per activity, and run best efforts."""

from __future__ import annotations

from typing import Annotated

from mcpcast import Param, tool
from pacekeeper.fitness import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup
from pacekeeper.tools._analysis_shapes import BestEfforts, CurveResult
from pacekeeper.tools._base import READ, READ_ONLY
from pacekeeper.tools._params import Durations, From, OptionalActivity, PowerSport, To
from pacekeeper.tools._shapes import SportName
from pacekeeper.tools.apps import CURVE, ui_meta

PERIOD = (" Give activity_id for one activity, or from/to for a period (default the last "
          "365 days); each point names the activity and day that set it.")


class CurveTools(AnalysisGroup):
    @tool(
        name="get_power_curve",
        meta=ui_meta(CURVE),
        description="Best mean power (W) for each duration (mean-maximal power curve) of one "
        "sport's activities (rides by default)." + PERIOD,
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_power_curve(self, owner: Owner, activity_id: OptionalActivity = None,
                              from_date: From = None, to_date: To = None,
                              durations_s: Durations = None,
                              sport: PowerSport = "ride") -> CurveResult:
        return await self.shaped(CurveResult, self.analysis().curve(
            owner, "power", activity_id=activity_id, start=from_date, end=to_date,
            durations=durations_s, sport=sport))

    @tool(
        name="get_hr_curve",
        meta=ui_meta(CURVE),
        description="Highest mean heart rate (bpm) sustained for each duration." + PERIOD,
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_hr_curve(
        self, owner: Owner, activity_id: OptionalActivity = None, from_date: From = None,
        to_date: To = None, durations_s: Durations = None,
        sport: Annotated[SportName | None, Param(
            description="Sport for a period's curve (default all).")] = None,
    ) -> CurveResult:
        return await self.shaped(CurveResult, self.analysis().curve(
            owner, "hr", activity_id=activity_id, start=from_date, end=to_date,
            durations=durations_s, sport=sport))

    @tool(
        name="get_pace_curve",
        meta=ui_meta(CURVE),
        description="Best mean speed (m/s, and pace s/km) for each duration; a period's "
        "curve covers runs unless sport says otherwise." + PERIOD,
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_pace_curve(
        self, owner: Owner, activity_id: OptionalActivity = None, from_date: From = None,
        to_date: To = None, durations_s: Durations = None,
        sport: Annotated[SportName | None, Param(
            description="Sport for a period's curve (default run).")] = None,
    ) -> CurveResult:
        return await self.shaped(CurveResult, self.analysis().curve(
            owner, "pace", activity_id=activity_id, start=from_date, end=to_date,
            durations=durations_s, sport=sport))

    @tool(
        name="get_best_efforts",
        description="Fastest times over 400 m to the marathon within runs of a period "
        "(default the last 365 days), each with its Daniels VDOT (a mile and up).",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_best_efforts(self, owner: Owner, from_date: From = None,
                               to_date: To = None) -> BestEfforts:
        return await self.shaped(BestEfforts,
                                 self.analysis().best_efforts(owner, from_date, to_date))


__all__ = ["CurveTools"]
