"""Typed results of the analysis service, which its tools return as they are (each type is
the tool's outputSchema) and its HTTP twins serve. Every result starts with a one-line
``summary``; the top-level fields are declared, and rows that clients rely on (chart days,
curve points, predictions) are typed too.

Fields marked ``Hidden`` are declared for mypy (the service's literals are checked key by
key) but left out of the JSON Schema: each schema field costs every conversation's
tools/list its bytes, and the size guard (tests/pacekeeper/test_tool_list_size.py) is
near its limit. ``extra="allow"`` keeps them in structuredContent as before. A hidden
field whose value may be an int or a float is ``Any``: a declared float would serialize
an int as ``250.0`` (the answers stay byte for byte what they were)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired

from pydantic import ConfigDict, with_config
from pydantic.json_schema import SkipJsonSchema as Hidden
from typing_extensions import TypedDict


@with_config(ConfigDict(extra="allow"))
class Result(TypedDict):
    summary: str


# The period an answer covers, undeclared in the schema ("from" is a Python keyword: the
# functional form; a result class takes it as a second base).
Span = TypedDict("Span", {"from": NotRequired[Hidden[str]], "to": NotRequired[Hidden[str]]})


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
    pace_s_per_mi: NotRequired[Hidden[float | None]]  # instead, in imperial units
    pace_s_per_100m: NotRequired[Hidden[float | None]]  # a swim's, instead (either units)
    activity_id: str
    date: str


# One shape per kind: a curve's points carry only their own figure. Curves, CP, FTP and
# zone answers also carry `sport` (the one they cover: issue 27 item 10), undeclared here:
# each declared field costs every conversation's tools/list its bytes ("allow" keeps
# undeclared fields in structuredContent and adds nothing to the schema).
PowerCurve = TypedDict("PowerCurve", {
    "summary": str, "kind": str, "sport": NotRequired[Hidden[str]],
    "activity_id": NotRequired[str], "from": NotRequired[str],
    "to": NotRequired[str], "activities": int, "points": list[PowerPoint]})
HrCurve = TypedDict("HrCurve", {
    "summary": str, "kind": str, "sport": NotRequired[Hidden[str]],
    "activity_id": NotRequired[str], "from": NotRequired[str],
    "to": NotRequired[str], "activities": int, "points": list[HrPoint]})
PaceCurve = TypedDict("PaceCurve", {
    "summary": str, "kind": str, "sport": NotRequired[Hidden[str]],
    "activity_id": NotRequired[str], "from": NotRequired[str],
    "to": NotRequired[str], "activities": int, "points": list[PacePoint]})
# What every curve shares, before its points (the service builds it once for the three).
CurveHead = TypedDict("CurveHead", {
    "summary": str, "kind": str, "sport": str, "activity_id": NotRequired[str],
    "from": NotRequired[str], "to": NotRequired[str], "activities": int})
for _curve in (PowerCurve, HrCurve, PaceCurve):  # what with_config does, for this form
    _curve.__pydantic_config__ = ConfigDict(extra="allow")  # type: ignore[union-attr]


class Prediction(TypedDict):
    method: Literal["vdot", "riegel"]
    distance_m: float
    time_s: float
    time: str
    pace_s_per_km: NotRequired[float]
    pace_s_per_mi: NotRequired[Hidden[float]]  # instead, in imperial units


class RacePrediction(Result):
    vdot: float
    distance_m: float
    time_s: float
    predictions: list[Prediction]
    basis: NotRequired[Hidden[dict[str, str]]]


class TrainingPaces(Result):
    vdot: float
    paces_s_per_km: NotRequired[dict[str, float]]
    paces_s_per_mi: NotRequired[Hidden[dict[str, float]]]  # instead, in imperial units
    paces: dict[str, str]
    repetition_per_400m_s: float


class Zones(Result):
    settings: dict[str, Any]
    power: NotRequired[list[dict[str, Any]]]
    heart_rate: NotRequired[list[dict[str, Any]]]
    pace: NotRequired[list[dict[str, Any]]]
    heart_rate_run: NotRequired[Hidden[list[dict[str, Any]]]]


class LoadRisk(Result):
    date: str
    risk: Literal["low", "moderate", "high"]
    acwr_rolling: float | None
    acwr_ewma: float | None
    monotony: float | None
    strain: float | None
    ramp_rate: float | None
    flags: list[str]
    acute_load_7d: NotRequired[Hidden[float | None]]
    chronic_load_28d_mean: NotRequired[Hidden[float | None]]
    weekly_load: NotRequired[Hidden[float | None]]
    ctl: NotRequired[Hidden[float | None]]
    atl: NotRequired[Hidden[float | None]]


class ReadinessResult(Result):
    date: str
    score: int | None
    level: str
    tsb: float | None
    inputs: list[dict[str, Any]]
    missing: NotRequired[Hidden[list[str]]]


class RecoveryStatus(Result):
    state: str
    advice: str
    tsb: float | None
    ctl: float | None
    atl: float | None
    readiness: int | None
    days_since_hard_session: int | None
    load_7d: NotRequired[Hidden[float | None]]


class WeeklyLoad(Result):
    weeks: list[dict[str, Any]]


class BestEfforts(Result, Span):
    vdot: float | None
    efforts: list[dict[str, Any]]


class Season(TypedDict):
    season: int  # the calendar year
    best_efforts: BestEfforts
    power: PowerCurve


class Records(Result, Span):
    all_time: BestEfforts
    seasons: list[Season]  # newest first; only those with runs or power


class CriticalPowerResult(Result, Span):
    model: Literal["2p", "3p"]
    cp_watts: float | None
    w_prime_j: float | None
    r_squared: float | None
    p_max_watts: float | None
    points: int
    sport: NotRequired[Hidden[str]]
    window_s: NotRequired[Hidden[list[int]]]


class FtpEstimate(Result, Span):
    estimate_watts: float | None
    source: str | None
    current_ftp_watts: float | None
    improved: bool
    estimates: list[dict[str, Any]]
    sport: NotRequired[Hidden[str]]


class WPrimeBalance(Result):
    activity_id: str
    model: str
    cp_watts: float | None
    w_prime_j: float | None
    min_w_prime_bal_j: float | None
    min_at_s: int
    series: list[dict[str, Any]]
    basis: NotRequired[Hidden[str]]
    time_below_25pct_s: NotRequired[Hidden[int]]
    warning: NotRequired[Hidden[str]]


class ZoneDistribution(Result, Span):
    kind: str
    activities: int
    zones: list[dict[str, Any]]
    three_zone: dict[str, Any]
    distribution: str | None
    sport: NotRequired[Hidden[str]]
    zone_model: NotRequired[Hidden[str | None]]
    missing: NotRequired[Hidden[list[str]]]


class Vo2max(Result, Span):
    cycling_vo2max: NotRequired[float | None]
    running_vdot: NotRequired[float | None]
    cycling_basis: NotRequired[Hidden[str]]
    running_basis: NotRequired[Hidden[str]]


class ActivityAnalysis(Result):
    activity_id: str
    sport: str
    date: str
    metrics: dict[str, Any]
    time_in_zones_s: dict[str, Any]
    peaks: dict[str, Any]
    recomputing: int
    name: NotRequired[Hidden[str | None]]
    elapsed_s: NotRequired[Hidden[float | None]]
    moving_s: NotRequired[Hidden[float | None]]
    distance_m: NotRequired[Hidden[float | None]]
    ftp_used_watts: NotRequired[Hidden[float | None]]
    best_efforts_s: NotRequired[Hidden[dict[str, float]]]


class ActivityComparison(Result):
    activities: list[dict[str, Any]]
    metrics: dict[str, list[Any]]
    peaks: dict[str, list[Any]]


class PeriodComparison(Result):
    a: dict[str, Any]
    b: dict[str, Any]
    change: dict[str, float | None]


# A period's figures (get_period_summary, each side of compare_periods).
PeriodFigures = TypedDict("PeriodFigures", {
    "from": str, "to": str, "activities": int, "moving_hours": float | None,
    "elapsed_hours": float | None, "km": float | None, "load": float | None,
    "load_per_week": float | None, "mean_ctl": float | None, "end_ctl": float | None,
    "power_5min_w": float | None, "power_20min_w": float | None,
    "by_sport": dict[str, Any]})


class PeriodStats(Result, Span):
    activities: int
    moving_hours: float | None
    km: float | None
    load: float | None
    by_sport: dict[str, Any]
    elapsed_hours: NotRequired[Hidden[float | None]]
    load_per_week: NotRequired[Hidden[float | None]]
    mean_ctl: NotRequired[Hidden[float | None]]
    end_ctl: NotRequired[Hidden[float | None]]
    power_5min_w: NotRequired[Hidden[float | None]]
    power_20min_w: NotRequired[Hidden[float | None]]


class Patterns(Result, Span):
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
    unit: NotRequired[Hidden[str]]
    required: NotRequired[Hidden[Any]]
    predicted_time_s: NotRequired[Hidden[float | None]]
    current: NotRequired[Hidden[Any]]


class TrainingWeek(Result):
    phase: str
    week_of: str
    target_load: float | None
    sessions: list[dict[str, Any]]
    rationale: str
    ctl: NotRequired[Hidden[float | None]]
    tsb_tomorrow: NotRequired[Hidden[float | None]]
    readiness: NotRequired[Hidden[int | None]]
    easy_time_share: NotRequired[Hidden[float | None]]
    goal: NotRequired[Hidden[dict[str, Any] | None]]


__all__ = [
    "ActivityAnalysis",
    "ActivityComparison",
    "BestEfforts",
    "ChartDay",
    "CriticalPowerResult",
    "CurveHead",
    "Feasibility",
    "FitnessChart",
    "FtpEstimate",
    "GoalDeleted",
    "GoalList",
    "GoalResult",
    "HrCurve",
    "HrPoint",
    "LoadRisk",
    "PaceCurve",
    "PacePoint",
    "Patterns",
    "PeriodComparison",
    "PeriodFigures",
    "PeriodStats",
    "PowerCurve",
    "PowerPoint",
    "Prediction",
    "RacePrediction",
    "ReadinessResult",
    "Records",
    "RecoveryStatus",
    "Result",
    "Season",
    "Span",
    "TrainingPaces",
    "TrainingSummary",
    "TrainingWeek",
    "Vo2max",
    "WPrimeBalance",
    "WeeklyLoad",
    "ZoneDistribution",
    "Zones",
]
