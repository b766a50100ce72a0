"""Running calculators: race-time prediction (Daniels VDOT and Riegel) and training paces,
and the runner's current VDOT."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcpcast import Param, tool
from pacekeeper.fitness._calculators import training_paces
from pacekeeper.fitness._figures import rounded_answer
from pacekeeper.fitness.analysis import RacePrediction, TrainingPaces
from pacekeeper.owner import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup, refusing
from pacekeeper.tools._base import READ, READ_ONLY

RaceDistance = Annotated[float, Param(description="A race's distance, m (800-100000)."),
                         Field(ge=800, le=100000)]
RaceTime = Annotated[float, Param(description="That race's time, s."),
                     Field(ge=60, le=86400)]


class RunningTools(AnalysisGroup):
    @tool(
        name="predict_race_time",
        description="Race times by Daniels VDOT (Riegel beside it) from a recent race, else the "
                    "90-day best effort; default 5 km, 10 km, half, marathon.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def predict_race_time(
        self, owner: Owner, distance_m: RaceDistance | None = None,
        time_s: RaceTime | None = None,
        target_distance_m: Annotated[float | None, Param(
            description="Distance to predict, m."), Field(ge=800, le=100000)] = None,
    ) -> RacePrediction:
        return await self.answer(owner, self.analysis().race_prediction(
            owner, distance_m, time_s, [target_distance_m] if target_distance_m else []))

    @tool(
        name="get_training_paces",
        description="Daniels training paces (easy, marathon, threshold, interval, repetition) for "
                    "a VDOT or a race's distance_m and time_s.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_training_paces(
        self, owner: Owner,
        vdot: Annotated[float | None, Param(description="VDOT (15-90)."),
                        Field(ge=15, le=90)] = None,
        distance_m: Annotated[float | None, Param(description="A race's distance."),
                              Field(ge=800, le=100000)] = None,
        time_s: Annotated[float | None, Param(description="That race's time."),
                          Field(ge=60, le=86400)] = None,
    ) -> TrainingPaces:
        with refusing():  # per km, or per mile for a person in imperial units
            units = await self.analysis().units(owner)
            return rounded_answer(training_paces(vdot, distance_m, time_s, units))


__all__ = ["RunningTools"]
