"""Plans (issue 32): workouts, the calendar, a suggested week kept. Thin over
``pacekeeper.workouts.WorkoutService``; a bad workout is the client's -32602 with the
service's message, another person's workout "no such workout"."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from mcpcast import InvalidParams, Param, ToolError, resource, tool
from pacekeeper.connections._errors import ConnectionProblem
from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.fitness._figures import rounded_answer
from pacekeeper.owner import Owner
from pacekeeper.providers.registry import DeviceProviderName as DeviceProvider
from pacekeeper.tools._base import (
    DESTRUCTIVE,
    IDEMPOTENT_WRITE,
    READ,
    READ_ONLY,
    WRITE,
    WRITES,
    ToolGroup,
)
from pacekeeper.tools._params import From, OptionalDay
from pacekeeper.tools.apps import CALENDAR, ui_meta
from pacekeeper.workouts import WorkoutService

# Lengths and shapes beyond the JSON types are the service's checks (its messages are
# the clearer ones), not the schema's: every byte here rides in each tools/list.
WorkoutId = Annotated[str, Param(description="From get_calendar.")]
Steps = Annotated[list[dict[str, Any]], Param(description=(
    "Each {kind: warmup|active|recovery|cooldown|rest, end: {time_s}|{distance_m}|"
    "{lap_press: true}, target?: {type: ftp_pct|watts|lthr_pct|bpm|pace|pace_pct|rpe, "
    "low, high}, note?} or {repeat: n, steps: [...]}; pace s/km (s/100m swim)."))]
Sport = Annotated[str, Param(description="cycling, running, swimming, walk, row...")]
Description = Annotated[str | None, Param()]


@asynccontextmanager
async def _refusals() -> AsyncIterator[None]:
    """Bad input is -32602 (the arguments are wrong); anything else the service refuses
    (not found) the tool's error message."""
    try:
        yield
    except ValidationFailed as exc:
        raise InvalidParams(exc.message) from None
    except ApiError as exc:
        raise ToolError(exc.message) from None


# A workout as the write tools answer it: the figures, not the steps sent (compact).
_BRIEF = ("id", "date", "name", "sport", "duration_s", "distance_m", "load", "load_method",
          "load_complete")


def _brief(view: dict[str, Any]) -> dict[str, Any]:
    return rounded_answer({k: view[k] for k in _BRIEF})


class PlanTools(ToolGroup):
    def workouts(self) -> WorkoutService:
        found = self._services().workouts
        if found is None:
            raise ToolError("plans are not available on this server")
        return found

    @tool(name="create_workout", description="Create a structured workout (optionally on a "
          "date): its planned duration, distance and load (TSS, hrTSS, rTSS or RPE) come "
          "back.", annotations=WRITES, scopes=(WRITE,))
    async def create_workout(self, owner: Owner, name: str, sport: Sport,
                             steps: Steps, date: OptionalDay = None,
                             description: Description = None) -> dict[str, Any]:
        body: dict[str, Any] = {"name": name, "sport": sport, "steps": steps}
        if description is not None:
            body["description"] = description
        if date is not None:
            body["date"] = date
        async with _refusals():
            return _brief(await self.workouts().create(owner, body))

    @tool(name="update_workout", description="Change a workout's name, sport, steps (as "
          "create_workout) or description.", annotations=IDEMPOTENT_WRITE, scopes=(WRITE,))
    async def update_workout(self, owner: Owner, workout_id: WorkoutId,
                             name: str | None = None,
                             sport: Sport | None = None,
                             steps: list[dict[str, Any]] | None = None,
                             description: Description = None) -> dict[str, Any]:
        changes = {k: v for k, v in (("name", name), ("sport", sport), ("steps", steps),
                                     ("description", description)) if v is not None}
        async with _refusals():
            return _brief(await self.workouts().update(owner, workout_id, changes))

    @tool(name="delete_workout", description="Delete a workout for good.",
          annotations=DESTRUCTIVE, scopes=(WRITE,))
    async def delete_workout(self, owner: Owner, workout_id: WorkoutId) -> dict[str, Any]:
        async with _refusals():
            await self.workouts().delete(owner, workout_id)
        return {"deleted": workout_id}

    @tool(name="schedule_workout", description="Put a workout on a date or move it there; "
          "without a date it leaves the calendar.", annotations=IDEMPOTENT_WRITE,
          scopes=(WRITE,))
    async def schedule_workout(self, owner: Owner, workout_id: WorkoutId,
                               date: OptionalDay = None,
                               send_to: Annotated[DeviceProvider | None, Param(
                                   description="Also onto this account's calendar and "
                                   "device.")] = None) -> dict[str, Any]:
        async with _refusals():
            answer = _brief(await self.workouts().schedule(owner, workout_id, date))
            if send_to is not None:
                try:
                    answer["sent"] = await self.workouts().send(owner, workout_id, send_to)
                except ConnectionProblem as problem:
                    raise ToolError(problem.message) from None
            return answer

    @tool(name="get_calendar", description="Planned workouts and done activities per day, "
          "each done one matched to its plan with duration and load ratios. Default 4 weeks "
          "from Monday.", annotations=READ_ONLY, scopes=(READ,), meta=ui_meta(CALENDAR))
    async def get_calendar(self, owner: Owner, from_date: From = None,
                           to_date: Annotated[OptionalDay, Param(name="to")] = None
                           ) -> dict[str, Any]:
        # Rounded by the service: the unit rules would round a ratio by its "load" name.
        async with _refusals():
            return await self.workouts().calendar(owner, from_date, to_date)

    @tool(name="save_training_week", description="Keep suggest_training_week's week (same "
          "arguments) as planned workouts, one per session.", annotations=WRITES,
          scopes=(WRITE,))
    async def save_training_week(
        self, owner: Owner,
        goal_id: str | None = None, sport: str | None = None,
    ) -> dict[str, Any]:
        async with _refusals():
            return rounded_answer(await self.workouts().save_week(owner, goal_id, sport))

    @resource(uri="workout://{id}", name="workout", mime_type="application/json",
              description="One workout: its steps and planned figures.")
    async def workout_resource(self, id: str, owner: Owner) -> dict[str, Any]:
        async with _refusals():
            return rounded_answer(await self.workouts().get(owner, id))


__all__ = ["PlanTools"]
