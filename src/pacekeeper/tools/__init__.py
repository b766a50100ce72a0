"""The service's MCP tools, one module per group, thin adapters onto the services.

The server class (``pacekeeper.mcp.PacekeeperTools``) inherits every group; A2A serves
the same registry.
"""

from pacekeeper.tools._base import ToolGroup
from pacekeeper.tools.activities import ActivityTools
from pacekeeper.tools.apps import AppViews
from pacekeeper.tools.athlete import AthleteTools
from pacekeeper.tools.compare import CompareTools
from pacekeeper.tools.curves import CurveTools
from pacekeeper.tools.goals import GoalTools
from pacekeeper.tools.load import LoadTools
from pacekeeper.tools.physiology import PhysiologyTools
from pacekeeper.tools.planning import PlanningTools
from pacekeeper.tools.plans import PlanTools
from pacekeeper.tools.running import RunningTools
from pacekeeper.tools.sync import SyncTools

# The analysis groups (issue 15), thin adapters onto pacekeeper.fitness.analysis.
ANALYSIS_GROUPS = (LoadTools, CurveTools, PhysiologyTools, RunningTools, CompareTools,
                   GoalTools, PlanningTools)

__all__ = ["ANALYSIS_GROUPS", "ActivityTools", "AppViews", "AthleteTools", "CompareTools",
           "CurveTools", "GoalTools", "LoadTools", "PhysiologyTools", "PlanTools",
           "PlanningTools", "RunningTools", "SyncTools", "ToolGroup"]
