"""Goals: set, list, delete, and how feasible one is from the current training."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mcpcast import Param, tool
from pacekeeper.fitness.analysis import Feasibility, GoalDeleted, GoalList, GoalResult
from pacekeeper.owner import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup
from pacekeeper.tools._base import DESTRUCTIVE, READ, READ_ONLY, WRITE, WRITES
from pacekeeper.tools._params import OptionalDay
from pacekeeper.tools._shapes import SportName

GoalId = Annotated[str, Param(description="From get_goals."),
                   Field(min_length=1, max_length=64)]


class GoalTools(AnalysisGroup):
    @tool(
        name="set_goal",
        description="Add a goal: a race (distance_m, time_s), FTP (value W), weight (value kg) or "
                    "weekly hours (value), optionally by a date.",
        annotations=WRITES,
        scopes=(WRITE,),
    )
    async def set_goal(
        self, owner: Owner,
        kind: Annotated[Literal["race", "ftp", "weight", "volume"], Param()],
        date: Annotated[OptionalDay, Param(description="Target day.")] = None,
        name: Annotated[str | None, Param(description="E.g. the race's."),
                        Field(max_length=200)] = None,
        sport: Annotated[SportName | None, Param(description="Race: default run.")] = None,
        distance_m: Annotated[float | None, Param(),
                              Field(ge=800, le=100000)] = None,
        time_s: Annotated[float | None, Param(description="Race goal time."),
                          Field(ge=60, le=86400)] = None,
        value: Annotated[float | None, Param(
            description="FTP W, weight kg or weekly hours."), Field(gt=0, le=2000)] = None,
    ) -> GoalResult:
        return await self.answer(owner, self.analysis().set_goal(
            owner, kind=kind, target_date=date, name=name, sport=sport,
            distance_m=distance_m, time_s=time_s, value=value))

    @tool(name="get_goals", description="The athlete's goals and their ids, oldest first.",
          annotations=READ_ONLY, scopes=(READ,))
    async def get_goals(self, owner: Owner) -> GoalList:
        return await self.answer(owner, self.analysis().goals(owner))

    @tool(name="delete_goal", description="Delete a goal for good (its id from get_goals).",
          annotations=DESTRUCTIVE, scopes=(WRITE,))
    async def delete_goal(self, owner: Owner, goal_id: GoalId) -> GoalDeleted:
        return await self.answer(owner, self.analysis().delete_goal(owner, goal_id))

    @tool(
        name="goal_feasibility",
        description="How feasible a goal is by its date from current form: a race's needed VDOT "
                    "against recent bests; FTP, weight, volume as weekly rates.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def goal_feasibility(self, owner: Owner, goal_id: GoalId) -> Feasibility:
        return await self.answer(owner, self.analysis().goal_feasibility(owner, goal_id))


__all__ = ["GoalTools"]
