"""Typed results of the analysis tools (each becomes the tool's outputSchema). Every result
starts with a one-line ``summary``; the top-level fields are declared, and rows that clients
rely on (chart days, curve points, predictions) are typed too."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict


@with_config(ConfigDict(extra="allow"))
class Result(TypedDict):
    summary: str


class ChartDay(TypedDict):
    date: str
    ctl: float
    atl: float
    tsb: float
    load: float


# "from" is a Python keyword: these shapes use the functional form.
FitnessChart = TypedDict("FitnessChart", {
    "summary": str, "from": str, "to": str, "ctl_days": int, "atl_days": int,
    "recomputing": int, "days": list[ChartDay]})


class TrainingSummary(Result):
    date: str
    ctl: float | None
    atl: float | None
    tsb: float | None
    ramp_7d: float | None
    weekly_load: list[float | None]
    last_4_weeks: dict[str, dict[str, Any]]
    recent_bests: dict[str, Any]
    readiness: dict[str, Any]
    recomputing: int


class PowerPoint(TypedDict):
    duration_s: int
    watts: NotRequired[float | None]
    activity_id: str
    date: str


class HrPoint(TypedDict):
    duration_s: int
    bpm: NotRequired[float | None]
    activity_id: str
    date: str


class PacePoint(TypedDict):
    duration_s: int
    speed_mps: NotRequired[float | None]
    pace_s_per_km: NotRequired[float | None]
    activity_id: str
    date: str


# One shape per kind: a curve's points carry only their own figure. Curves, CP, FTP and
# zone answers also carry `sport` (the one they cover: issue 27 item 10), undeclared here:
# each declared field costs every conversation's tools/list its bytes ("allow" keeps
# undeclared fields in structuredContent and adds nothing to the schema).
PowerCurve = TypedDict("PowerCurve", {
    "summary": str, "kind": str, "activity_id": NotRequired[str], "from": NotRequired[str],
    "to": NotRequired[str], "activities": int, "points": list[PowerPoint]})
HrCurve = TypedDict("HrCurve", {
    "summary": str, "kind": str, "activity_id": NotRequired[str], "from": NotRequired[str],
    "to": NotRequired[str], "activities": int, "points": list[HrPoint]})
PaceCurve = TypedDict("PaceCurve", {
    "summary": str, "kind": str, "activity_id": NotRequired[str], "from": NotRequired[str],
    "to": NotRequired[str], "activities": int, "points": list[PacePoint]})
for _curve in (PowerCurve, HrCurve, PaceCurve):  # what with_config does, for this form
    _curve.__pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[union-attr]


class Prediction(TypedDict):
    method: Literal["vdot", "riegel"]
    distance_m: float
    time_s: float
    time: str
    pace_s_per_km: float


class RacePrediction(Result):
    vdot: float
    distance_m: float
    time_s: float
    predictions: list[Prediction]


class TrainingPaces(Result):
    vdot: float
    paces_s_per_km: dict[str, float]
    paces: dict[str, str]
    repetition_per_400m_s: float


class Zones(Result):
    settings: dict[str, Any]
    power: NotRequired[list[dict[str, Any]]]
    heart_rate: NotRequired[list[dict[str, Any]]]
    pace: NotRequired[list[dict[str, Any]]]


class LoadRisk(Result):
    date: str
    risk: Literal["low", "moderate", "high"]
    acwr_rolling: float | None
    acwr_ewma: float | None
    monotony: float | None
    strain: float | None
    ramp_rate: float | None
    flags: list[str]


class ReadinessResult(Result):
    date: str
    score: int | None
    level: str
    tsb: float | None
    inputs: list[dict[str, Any]]


class RecoveryStatus(Result):
    state: str
    advice: str
    tsb: float | None
    ctl: float | None
    atl: float | None
    readiness: int | None
    days_since_hard_session: int | None


class WeeklyLoad(Result):
    weeks: list[dict[str, Any]]


class BestEfforts(Result):
    vdot: float | None
    efforts: list[dict[str, Any]]


class CriticalPowerResult(Result):
    model: Literal["2p", "3p"]
    cp_watts: float | None
    w_prime_j: float | None
    r_squared: float | None
    p_max_watts: float | None
    points: int


class FtpEstimate(Result):
    estimate_watts: float | None
    source: str | None
    current_ftp_watts: float | None
    improved: bool
    estimates: list[dict[str, Any]]


class WPrimeBalance(Result):
    activity_id: str
    model: str
    cp_watts: float | None
    w_prime_j: float | None
    min_w_prime_bal_j: float | None
    min_at_s: int
    series: list[dict[str, Any]]


class ZoneDistribution(Result):
    kind: str
    activities: int
    zones: list[dict[str, Any]]
    three_zone: dict[str, Any]
    distribution: str | None


class Vo2max(Result):
    cycling_vo2max: NotRequired[float | None]
    running_vdot: NotRequired[float | None]


class ActivityAnalysis(Result):
    activity_id: str
    sport: str
    date: str
    metrics: dict[str, Any]
    time_in_zones_s: dict[str, Any]
    peaks: dict[str, Any]
    recomputing: int


class ActivityComparison(Result):
    activities: list[dict[str, Any]]
    metrics: dict[str, list[Any]]
    peaks: dict[str, list[Any]]


class PeriodComparison(Result):
    a: dict[str, Any]
    b: dict[str, Any]
    change: dict[str, float | None]


class PeriodStats(Result):
    activities: int
    moving_hours: float | None
    km: float | None
    load: float | None
    by_sport: dict[str, Any]


class Patterns(Result):
    patterns: list[dict[str, Any]]


class GoalResult(Result):
    goal: dict[str, Any]


class GoalList(Result):
    goals: list[dict[str, Any]]


class GoalDeleted(Result):
    deleted: bool
    goal_id: str


class Feasibility(Result):
    goal: dict[str, Any]
    verdict: Literal["achieved", "likely", "possible", "unlikely", "unknown"]
    model: str
    detail: str
    weeks_left: float | None


class TrainingWeek(Result):
    phase: str
    week_of: str
    target_load: float | None
    sessions: list[dict[str, Any]]
    rationale: str


__all__ = [
    "ActivityAnalysis", "ActivityComparison", "BestEfforts", "ChartDay", "CriticalPowerResult",
    "Feasibility", "FitnessChart", "FtpEstimate", "GoalDeleted", "GoalList", "GoalResult",
    "HrCurve", "HrPoint", "LoadRisk", "PaceCurve", "PacePoint", "Patterns", "PeriodComparison",
    "PeriodStats", "PowerCurve", "PowerPoint", "Prediction", "RacePrediction", "ReadinessResult",
    "RecoveryStatus", "Result", "TrainingPaces", "TrainingSummary", "TrainingWeek", "Vo2max",
    "WPrimeBalance", "WeeklyLoad", "ZoneDistribution", "Zones",
]
