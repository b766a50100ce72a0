"""Parameter types the analysis tools share (descriptions and constraints in the schema)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mcpcast import Param
from pacekeeper.tools._shapes import SportName

DATE = r"^\d{4}-\d{2}-\d{2}$"

From = Annotated[str | None, Param(name="from", description="First day (YYYY-MM-DD)."),
                 Field(pattern=DATE)]
To = Annotated[str | None, Param(name="to", description="Last day (YYYY-MM-DD); default "
                                 "today."), Field(pattern=DATE)]
Day = Annotated[str | None, Param(description="The day (YYYY-MM-DD); default today."),
                Field(pattern=DATE)]
ActivityRef = Annotated[str, Param(description="The activity's id (from list_activities)."),
                        Field(min_length=1, max_length=64)]
OptionalActivity = Annotated[str | None, Param(
    description="One activity's curve (its id); leave out for a period (from/to)."),
    Field(max_length=64)]
Durations = Annotated[list[Annotated[int, Field(ge=1, le=86400)]] | None, Param(
    description="Durations in seconds, among the stored ones (1, 5, 10, 30, 60, 120, 300, "
    "600, 1200, 1800, 3600, ... 86400); default a 14-point selection."),
    Field(max_length=80)]
# Power figures are one sport's (a run's power is not a crank's): rides unless asked.
PowerSport = Annotated[SportName, Param(description="Sport whose activities count "
                                        "(default ride).")]

__all__ = ["DATE", "ActivityRef", "Day", "Durations", "From", "OptionalActivity",
           "PowerSport", "To"]
