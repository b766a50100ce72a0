"""Training-load tools: the summary an assistant asks for first, the fitness chart (PMC),
load risk, readiness, recovery status and weekly load."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcpcast import Param, tool
from pacekeeper.fitness.analysis import (
    FitnessChart,
    LoadRisk,
    ReadinessResult,
    RecoveryStatus,
    TrainingSummary,
    WeeklyLoad,
)
from pacekeeper.owner import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup
from pacekeeper.tools._base import READ, READ_ONLY
from pacekeeper.tools._params import Day, From, To
from pacekeeper.tools.apps import FITNESS_CHART, ui_meta


class LoadTools(AnalysisGroup):
    @tool(
        name="get_training_summary",
        description="Start here: today's fitness (CTL), fatigue (ATL) and form (TSB), the last 4 "
                    "weeks by sport, recent bests, readiness.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_training_summary(self, owner: Owner) -> TrainingSummary:
        return await self.answer(owner, self.analysis().training_summary(owner))

    @tool(
        name="get_fitness_chart",
        meta=ui_meta(FITNESS_CHART),
        description="Fitness per day for trends: CTL (42-day fitness), ATL (7-day fatigue), TSB "
                    "(form = yesterday's CTL - ATL), load. Default 90 days, up to 11 years.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_fitness_chart(
        self, owner: Owner, from_date: From = None, to_date: To = None,
        ctl_days: Annotated[int | None, Param(
            description="Default 42."), Field(ge=1, le=365)] = None,
        atl_days: Annotated[int | None, Param(
            description="Default 7."), Field(ge=1, le=365)] = None,
        include_plan: Annotated[bool, Param(
            description="Project through planned workouts (to defaults to the last).")] = False,
    ) -> FitnessChart:
        workouts = self._services().workouts
        if include_plan and workouts is not None:
            return await self.answer(owner, workouts.fitness_chart(
                owner, from_date, to_date, ctl_days, atl_days))
        return await self.answer(owner, self.analysis().fitness_chart(
            owner, from_date, to_date, ctl_days, atl_days))

    @tool(
        name="get_load_risk",
        description="Injury risk on a day: acute:chronic ratio (7/28-day rolling and EWMA), "
                    "monotony, strain, CTL ramp, flags.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_load_risk(self, owner: Owner, date: Day = None) -> LoadRisk:
        return await self.answer(owner, self.analysis().load_risk(owner, date))

    @tool(
        name="get_readiness",
        description="Readiness 0-100 on a day: HRV and resting HR against 60-day baselines, sleep "
                    "and form, with each input's share.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_readiness(self, owner: Owner, date: Day = None) -> ReadinessResult:
        return await self.answer(owner, self.analysis().readiness(owner, date))

    @tool(
        name="get_recovery_status",
        description="Whether to train hard today: form, readiness, days since the last hard "
                    "session, what training suits.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_recovery_status(self, owner: Owner) -> RecoveryStatus:
        return await self.answer(owner, self.analysis().recovery_status(owner))

    @tool(
        name="get_weekly_load",
        description="Training per week (from Monday) and sport: sessions, hours, km, load.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_weekly_load(
        self, owner: Owner,
        weeks: Annotated[int, Param(description="Weeks back, this one included."),
                         Field(ge=1, le=104)] = 8,
    ) -> WeeklyLoad:
        return await self.answer(owner, self.analysis().weekly_load(owner, weeks))


__all__ = ["LoadTools"]
