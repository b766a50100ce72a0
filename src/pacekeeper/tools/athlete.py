"""Tools over the athlete: settings with history, and daily health."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, cast

from pydantic import Field

from mcpcast import Param, resource, tool
from pacekeeper.fitness import _inputs as inputs
from pacekeeper.fitness import daily_json
from pacekeeper.fitness._figures import daily_day
from pacekeeper.owner import Owner
from pacekeeper.tools._base import (
    IDEMPOTENT_WRITE,
    READ,
    READ_ONLY,
    WRITE,
    ToolGroup,
    service_errors,
)
from pacekeeper.tools._params import AnySport, DayText
from pacekeeper.tools._shapes import AthleteResult, DailyDay, DailyResult


def _settings_line(settings: dict[str, Any], by_sport: dict[str, dict[str, Any]]) -> str:
    if not settings:
        return "no settings yet: set ftp_watts, lthr_bpm, max_hr_bpm, ... for metrics"
    general = [f"{s} {'/'.join(v['from_general'])} from the general value"
               for s, v in by_sport.items() if v.get("from_general")]
    return ", ".join(f"{k}={v}" for k, v in settings.items()) + (
        f" ({'; '.join(general)})" if general else "")


def _result(found: dict[str, Any], summary: str | None = None) -> AthleteResult:
    result = AthleteResult(
        summary=summary or _settings_line(found["settings"], found["by_sport"]),
        as_of=found["as_of"], settings=found["settings"], by_sport=found["by_sport"],
        history=found["history"])
    if "recomputed_activities" in found:
        result["recomputed_activities"] = found["recomputed_activities"]
    if found.get("recomputing"):
        result["recomputing"] = True
        result["recompute_from"] = found["recompute_from"]
    return result


class AthleteTools(ToolGroup):
    @tool(
        name="get_athlete",
        description="The athlete's settings (FTP W, LTHR, max/resting HR bpm, weight kg, threshold "
                    "pace s/km, units), by_sport (per sport; from_general: HR from the general "
                    "value), history.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_athlete(self, owner: Owner) -> AthleteResult:
        return _result(await self.fitness().athlete(owner))

    @tool(
        name="update_athlete_settings",
        description="Set thresholds or profile from valid_from (default today) on; activities from "
                    "then are recomputed. With sport (ride, run, swim) that sport's; else "
                    "ftp_watts is cycling's.",
        annotations=IDEMPOTENT_WRITE,
        scopes=(WRITE,),
    )
    async def update_athlete_settings(
        self,
        owner: Owner,
        ftp_watts: Annotated[int | None, Param(),
                             Field(ge=30, le=2000)] = None,
        lthr_bpm: Annotated[int | None, Param(),
                            Field(ge=80, le=230)] = None,
        max_hr_bpm: Annotated[int | None, Param(),
                              Field(ge=100, le=250)] = None,
        resting_hr_bpm: Annotated[int | None, Param(),
                                  Field(ge=25, le=120)] = None,
        weight_kg: Annotated[float | None, Param(),
                             Field(ge=25, le=300)] = None,
        threshold_pace_s_per_km: Annotated[float | None, Param(
            description="Run threshold pace."),
            Field(ge=120, le=900)] = None,
        sex: Annotated[str | None, Param(description="M or F (for TRIMP)."),
                       Field(pattern="^[MF]$")] = None,
        birth_year: Annotated[int | None, Param(),
                              Field(ge=1900, le=2100)] = None,
        units: Annotated[str | None, Param(description="metric or imperial."),
                         Field(pattern="^(metric|imperial)$")] = None,
        threshold_pace_s_per_100m: Annotated[float | None, Param(description="Swim CSS."),
                                             Field(ge=40, le=300)] = None,
        sport: AnySport = None,
        valid_from: Annotated[DayText, Param(
            description="Default today.")] = None,
    ) -> AthleteResult:
        values = {k: v for k, v in {
            "ftp_watts": ftp_watts, "lthr_bpm": lthr_bpm, "max_hr_bpm": max_hr_bpm,
            "resting_hr_bpm": resting_hr_bpm, "weight_kg": weight_kg,
            "threshold_pace_s_per_km": threshold_pace_s_per_km,
            "threshold_pace_s_per_100m": threshold_pace_s_per_100m, "sex": sex,
            "birth_year": birth_year, "units": units}.items() if v is not None}
        async with service_errors():
            found = await self.fitness().update_athlete(
                owner, values, inputs.day(valid_from, "valid_from"), sport)
        if found.get("recomputing"):
            return _result(found, "saved; the metrics of activities from "
                           f"{found['recompute_from']} on are being recomputed")
        return _result(found, f"saved; {found['recomputed_activities']} activities recomputed")

    @tool(
        name="get_daily_summaries",
        description="Daily health merged across providers: resting HR bpm, HRV rMSSD ms, sleep "
                    "(time, stages, score), steps, weight kg.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_daily_summaries(
        self,
        owner: Owner,
        from_date: Annotated[DayText, Param(
            name="from", description="Default 14 days ago.")] = None,
        to_date: Annotated[DayText, Param(
            name="to", description="Default today.")] = None,
    ) -> DailyResult:
        service = self.fitness()
        async with service_errors():
            end = inputs.day(to_date, "to") or service.clock().date()
            start = inputs.day(from_date, "from") or end - timedelta(days=13)
            days = await service.daily(owner, start, end)
        merged = [cast(DailyDay, daily_day(day)) for day in daily_json(days)]
        return DailyResult(summary=f"{len(merged)} days with data from {start} to {end}",
                           days=merged)

    @resource(uri="athlete://profile", name="athlete-profile", mime_type="application/json",
              description="The athlete's current settings and their history.")
    async def athlete_resource(self, owner: Owner) -> dict[str, Any]:
        return await self.fitness().athlete(owner)


__all__ = ["AthleteTools"]
