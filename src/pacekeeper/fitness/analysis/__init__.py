"""Analysis over a person's stored activities: the answers of the analysis tools (their HTTP
twins call the tools). One module per purpose, mirroring ``pacekeeper.tools``: ``_load``,
``_curves``, ``_physiology``, ``_running``, ``_compare``, ``_goals``, ``_planning``; each part
derives from ``AnalysisBase`` (``_base``: the store, the clock, periods, the PMC) and, where
it reads another part's answer, from that part (compare and goals from physiology,
planning from load and goals). ``AnalysisService`` is their one facade; every result is a
``TypedDict`` of ``_results`` (the tools' output schemas).

Period questions read what import stored per activity (``activities.load`` and members
of ``activities.metrics``: curves at ``curve_durations``, time in zones, best efforts),
never the streams; only ``w_prime_balance`` reads one activity's streams. Every query
names the owner; nothing is cached between calls.

Conventions:

- A day is the activity's local day (start plus its UTC offset; UTC when unknown).
- The PMC starts at the person's first activity with a load, whatever range is asked
  (``pmc``); TSB of a day is form going into it, CTL - ATL of the day before (``form``).
- Curves: per activity, the mean-maximal values at the ``STANDARD_DURATIONS`` no longer
  than the activity; a period's curve is their element-wise best (``merge_curves``).
- ``recomputing``: activities whose stored metrics predate a settings change valid on
  their day (a recomputation has not reached them yet): figures may still change.
"""

from __future__ import annotations

from pacekeeper.fitness.analysis._base import AnalysisBase
from pacekeeper.fitness.analysis._common import (
    DEFAULT_CURVE_DURATIONS,
    MAX_DAYS,
    GoalNotFound,
    aligned,
    coggan_3zone,
    goal_json,
    local_day,
    possible_efforts,
)
from pacekeeper.fitness.analysis._compare import CompareAnalysis
from pacekeeper.fitness.analysis._curves import CurveAnalysis
from pacekeeper.fitness.analysis._goals import GoalAnalysis
from pacekeeper.fitness.analysis._load import LoadAnalysis
from pacekeeper.fitness.analysis._physiology import PhysiologyAnalysis
from pacekeeper.fitness.analysis._planning import PlanningAnalysis
from pacekeeper.fitness.analysis._results import (
    ActivityAnalysis,
    ActivityComparison,
    BestEfforts,
    ChartDay,
    CriticalPowerResult,
    CurveHead,
    Feasibility,
    FitnessChart,
    FtpEstimate,
    GoalDeleted,
    GoalList,
    GoalResult,
    HrCurve,
    HrPoint,
    LoadRisk,
    PaceCurve,
    PacePoint,
    Patterns,
    PeriodComparison,
    PeriodFigures,
    PeriodStats,
    PowerCurve,
    PowerPoint,
    Prediction,
    RacePrediction,
    ReadinessResult,
    Records,
    RecoveryStatus,
    Result,
    Span,
    TrainingPaces,
    TrainingSummary,
    TrainingWeek,
    Vo2max,
    WeeklyLoad,
    WPrimeBalance,
    ZoneDistribution,
    Zones,
)
from pacekeeper.fitness.analysis._running import RunningAnalysis

# The parts by purpose, in the order of the tool groups (``pacekeeper.tools``). A test
# checks that no two define a method of one name (a mixin would shadow the other silently).
PARTS = (LoadAnalysis, CurveAnalysis, PhysiologyAnalysis, RunningAnalysis, CompareAnalysis,
         GoalAnalysis, PlanningAnalysis)


class AnalysisService(PlanningAnalysis, CompareAnalysis, CurveAnalysis, RunningAnalysis):
    """Every analysis answer on one object (the tools call ``fitness.analysis.<method>``):
    the parts joined; planning brings load, goals and physiology with it."""


__all__ = ["DEFAULT_CURVE_DURATIONS", "MAX_DAYS", "PARTS", "ActivityAnalysis",
           "ActivityComparison", "AnalysisBase", "AnalysisService", "BestEfforts", "ChartDay",
           "CompareAnalysis", "CriticalPowerResult", "CurveAnalysis", "CurveHead", "Feasibility",
           "FitnessChart", "FtpEstimate", "GoalAnalysis", "GoalDeleted", "GoalList",
           "GoalNotFound", "GoalResult", "HrCurve", "HrPoint", "LoadAnalysis", "LoadRisk",
           "PaceCurve", "PacePoint", "Patterns", "PeriodComparison", "PeriodFigures",
           "PeriodStats", "PhysiologyAnalysis", "PlanningAnalysis", "PowerCurve", "PowerPoint",
           "Prediction", "RacePrediction", "ReadinessResult", "Records", "RecoveryStatus", "Result",
           "RunningAnalysis", "Span", "TrainingPaces", "TrainingSummary", "TrainingWeek", "Vo2max",
           "WPrimeBalance", "WeeklyLoad", "ZoneDistribution", "Zones", "aligned", "coggan_3zone",
           "goal_json", "local_day", "possible_efforts"]
