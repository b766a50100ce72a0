"""Planning: a suggested training week, and the prompts that pull the analysis tools
together (weekly review, race preparation, training-load check)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcpcast import Message, Param, prompt, tool
from pacekeeper.fitness.analysis import TrainingWeek
from pacekeeper.owner import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup
from pacekeeper.tools._base import READ, READ_ONLY
from pacekeeper.tools._shapes import SportName


class PlanningTools(AnalysisGroup):
    @tool(
        name="suggest_training_week",
        description="Plan next week (from Monday) by load, form, readiness and goal: build, hold, "
                    "recovery or taper, ~80 % easy, each session's duration, load, zone.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def suggest_training_week(
        self, owner: Owner,
        goal_id: Annotated[str | None, Param(description="A goal to plan for."),
                           Field(max_length=64)] = None,
        sport: Annotated[SportName | None, Param(
            description="Default the goal's, else the most trained.")] = None,
    ) -> TrainingWeek:
        return await self.answer(owner, self.analysis().suggest_week(owner, goal_id, sport))

    @prompt(name="weekly_review", description="Review the past week of training.")
    def weekly_review(self) -> list[Message]:
        return [
            Message.system("You are a careful endurance coach. Use the Pacekeeper tools; "
                           "quote their numbers, do not invent any."),
            Message.user(
                "Review my last week of training. Call get_training_summary first, then "
                "get_weekly_load (weeks=2) to compare with the week before, "
                "get_zone_distribution for the last 7 days, get_load_risk and "
                "get_recovery_status. Say what went well, what to watch, and finish with "
                "suggest_training_week for next week."),
        ]

    @prompt(name="race_preparation", description="Prepare for a race.")
    def race_preparation(
        self,
        race: Annotated[str, Param(description="The race, e.g. 'half marathon on "
                                   "2027-04-12 in 1:45'.")] = "my next race",
    ) -> list[Message]:
        return [
            Message.system("You are a careful running and cycling coach. Use the Pacekeeper "
                           "tools; quote their numbers, do not invent any."),
            Message.user(
                f"Help me prepare for {race}. Call get_goals (set_goal if it is not there), "
                "goal_feasibility for it, get_best_efforts and predict_race_time from my best "
                "recent race, get_training_paces for my VDOT, get_fitness_chart for the last "
                "12 weeks, then suggest_training_week with the goal. Give a pacing plan."),
        ]

    @prompt(name="training_load_check", description="Check whether the training load is "
            "safe and productive.")
    def training_load_check(self) -> list[Message]:
        return [
            Message.system("You are a careful coach. Use the Pacekeeper tools; quote their "
                           "numbers, do not invent any."),
            Message.user(
                "Check my training load. Call get_fitness_chart for the last 90 days, "
                "get_load_risk (ACWR, monotony, strain, ramp), get_readiness, "
                "get_recovery_status and detect_patterns (12 weeks). Tell me whether to push, "
                "hold or back off, and why."),
        ]


__all__ = ["PlanningTools"]
