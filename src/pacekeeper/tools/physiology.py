"""Physiology tools: critical power, FTP, W' balance, zones and their distribution,
VO2max estimates."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from mcpcast import Param, resource, tool
from pacekeeper.fitness._calculators import zones
from pacekeeper.fitness._figures import rounded_answer
from pacekeeper.fitness.analysis import (
    CriticalPowerResult,
    FtpEstimate,
    Vo2max,
    WPrimeBalance,
    ZoneDistribution,
    Zones,
)
from pacekeeper.owner import Owner
from pacekeeper.tools._analysis_base import AnalysisGroup, refusing
from pacekeeper.tools._base import READ, READ_ONLY
from pacekeeper.tools._params import ActivityRef, AnySport, From, PowerSport, To


class PhysiologyTools(AnalysisGroup):
    @tool(
        name="estimate_critical_power",
        description="Critical power W and W' J from one sport's bests (default ride, 90 days): "
                    "2-parameter fit of 2-20 min bests, or Morton's 3-parameter (adds Pmax).",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def estimate_critical_power(
        self, owner: Owner, from_date: From = None, to_date: To = None,
        model: Annotated[Literal["2p", "3p"], Param()] = "2p",
        sport: PowerSport = "ride",
    ) -> CriticalPowerResult:
        return await self.answer(owner, self.analysis().critical_power(
            owner, from_date, to_date, model, sport))

    @tool(
        name="estimate_ftp",
        description="FTP estimates W from one sport's bests (default ride, 90 days): 95 % of 20 "
                    "min, CP, 75 % of the best minute; and whether one beats the FTP set.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def estimate_ftp(self, owner: Owner, from_date: From = None,
                           to_date: To = None, sport: PowerSport = "ride") -> FtpEstimate:
        return await self.answer(owner, self.analysis().ftp_estimate(
            owner, from_date, to_date, sport))

    @tool(
        name="get_wbal",
        description="W' balance J through a ride (Skiba 2012 or 2015): its low point and when, "
                    "time below 25 %, a series. CP and W' default to the 90-day fit.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_wbal(
        self, owner: Owner, activity_id: ActivityRef,
        cp_watts: Annotated[float | None, Param(description="Default the fitted CP."),
                            Field(ge=50, le=1000)] = None,
        w_prime_j: Annotated[float | None, Param(description="Default the fitted W'."),
                             Field(ge=1000, le=100000)] = None,
        model: Annotated[Literal["skiba2012", "skiba2015"], Param()] = "skiba2015",
        max_points: Annotated[int, Param(),
                              Field(ge=10, le=1000)] = 200,
    ) -> WPrimeBalance:
        return await self.answer(owner, self.analysis().w_prime_balance(
            owner, activity_id, cp_watts, w_prime_j, model, max_points))

    @tool(
        name="get_zone_distribution",
        description="Time in power, HR or pace zones over a period (default 28 days) with Seiler's "
                    "3-zone shares (polarized/pyramidal/threshold); sport default ride (power), "
                    "run (pace), all (HR).",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_zone_distribution(
        self, owner: Owner, from_date: From = None, to_date: To = None,
        kind: Annotated[Literal["power", "hr", "pace"], Param()] = "power",
        sport: AnySport = None,
    ) -> ZoneDistribution:
        return await self.answer(owner, self.analysis().zone_distribution(
            owner, from_date, to_date, kind, sport))

    @tool(
        name="calculate_zones",
        description="Zones from the values given, else the settings (of sport): power % FTP, heart "
                    "rate (% LTHR, Karvonen or % max), run pace % threshold.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def calculate_zones(
        self, owner: Owner,
        ftp_watts: Annotated[float | None, Param(),
                             Field(ge=30, le=2000)] = None,
        lthr_bpm: Annotated[float | None, Param(description="Lactate threshold HR."),
                            Field(ge=80, le=230)] = None,
        max_hr_bpm: Annotated[float | None, Param(),
                              Field(ge=100, le=250)] = None,
        resting_hr_bpm: Annotated[float | None, Param(),
                                  Field(ge=25, le=120)] = None,
        threshold_pace_s_per_km: Annotated[float | None, Param(
            description="Run threshold pace."), Field(ge=120, le=900)] = None,
        sport: AnySport = None,
    ) -> Zones:
        given = {k: v for k, v in {
            "ftp_watts": ftp_watts, "lthr_bpm": lthr_bpm, "max_hr_bpm": max_hr_bpm,
            "resting_hr_bpm": resting_hr_bpm,
            "threshold_pace_s_per_km": threshold_pace_s_per_km}.items() if v is not None}
        with refusing():
            if not given:
                given = await self.fitness().thresholds(owner, sport)
            # Pace zones per km, or per mile for a person in imperial units.
            return rounded_answer(zones(given, await self.analysis().units(owner)))

    @tool(
        name="estimate_vo2max",
        description="VO2max ml/kg/min from the last 90 days: rides from best 5 min power and "
                    "weight, runs as Daniels VDOT.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def estimate_vo2max(self, owner: Owner) -> Vo2max:
        return await self.answer(owner, self.analysis().vo2max(owner))

    @resource(uri="athlete://zones", name="athlete-zones", mime_type="application/json",
              description="The athlete's current power, heart-rate and pace zones.")
    async def zones_resource(self, owner: Owner) -> Zones:
        settings = (await self.fitness().athlete(owner))["settings"]
        return rounded_answer(zones(settings, settings.get("units") or "metric"))


__all__ = ["PhysiologyTools"]
