"""One activity analysed, activities and periods side by side, and patterns over weeks."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcpcast import Param, resource, tool
from pacekeeper.fitness._figures import rounded_answer
from pacekeeper.fitness.analysis import (
    ActivityAnalysis,
    ActivityComparison,
    Patterns,
    PeriodComparison,
    PeriodStats,
)
from pacekeeper.owner import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup
from pacekeeper.tools._base import READ, READ_ONLY, service_errors
from pacekeeper.tools._params import ActivityRef, From, RequiredDay, To

AFrom = Annotated[RequiredDay, Param()]
ATo = Annotated[RequiredDay, Param()]
BFrom = Annotated[RequiredDay, Param()]
BTo = Annotated[RequiredDay, Param()]


class CompareTools(AnalysisGroup):
    @tool(
        name="analyze_activity",
        description="One activity analysed: load and its method, NP/IF/VI/EF, decoupling, time in "
                    "zones, peaks, best efforts, the FTP used.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def analyze_activity(self, owner: Owner, activity_id: ActivityRef
                               ) -> ActivityAnalysis:
        return await self.answer(owner, self.analysis().analyze(owner, activity_id))

    @tool(
        name="compare_activities",
        description="2-5 activities side by side, metric by metric.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def compare_activities(
        self, owner: Owner,
        activity_ids: Annotated[list[Annotated[str, Field(max_length=64)]], Param(
            description="2-5 ids."), Field(min_length=2, max_length=5)],
    ) -> ActivityComparison:
        return await self.answer(owner, self.analysis().compare_activities(owner, activity_ids))

    @tool(
        name="get_period_summary",
        description="A period's totals (default 28 days) by sport: activities, hours, km, weekly "
                    "load, CTL, 5 and 20 min power.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_period_summary(self, owner: Owner, from_date: From = None,
                                 to_date: To = None) -> PeriodStats:
        return await self.answer(owner, self.analysis().period_summary(owner, from_date, to_date))

    @tool(
        name="compare_periods",
        description="Two periods side by side (e.g. this block and the last): totals, weekly load, "
                    "CTL, power bests, the change A to B.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def compare_periods(
        self, owner: Owner,
        a_from: AFrom, a_to: ATo, b_from: BFrom, b_to: BTo,
    ) -> PeriodComparison:
        return await self.answer(owner, self.analysis().compare_periods(
            owner, (a_from, a_to), (b_from, b_to)))

    @tool(
        name="detect_patterns",
        description="Trends of recent weeks: load and hours (with significance), long-run and "
                    "long-ride progression, intensity mix, consistency, usual day.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def detect_patterns(
        self, owner: Owner,
        weeks: Annotated[int, Param(),
                         Field(ge=4, le=104)] = 12,
    ) -> Patterns:
        return await self.answer(owner, self.analysis().patterns(owner, weeks))

    @resource(uri="activity://{id}/analysis", name="activity-analysis",
              mime_type="application/json",
              description="One activity's analysis (the analyze_activity result).")
    async def activity_analysis_resource(self, id: str, owner: Owner) -> ActivityAnalysis:
        async with service_errors():
            return rounded_answer(await self.analysis().analyze(owner, id))


__all__ = ["CompareTools"]
