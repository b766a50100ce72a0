"""Parameter types the analysis tools share (descriptions and constraints in the schema)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from mcpcast import Param
from pacekeeper.fitness._inputs import parse_day

DATE = r"^\d{4}-\d{2}-\d{2}$"


def _in_range(text: str | None) -> str | None:
    """The HTTP routes' check of a day (`parse_day`), at the tool's boundary: a day
    outside the supported range is the client's -32602 naming the argument (issue 28)."""
    if text is not None:
        parse_day(text)
    return text


# A day argument: YYYY-MM-DD within the supported range. The pattern goes before the
# validator (after it, pydantic leaves it out of the schema). `DayText` has no pattern in
# its schema (arguments that never declared one keep their schema as it was).
DayText = Annotated[str | None, AfterValidator(_in_range)]
OptionalDay = Annotated[str | None, Field(pattern=DATE), AfterValidator(_in_range)]
RequiredDay = Annotated[str, Field(pattern=DATE), AfterValidator(_in_range)]
From = Annotated[OptionalDay, Param(name="from", description="First day (YYYY-MM-DD).")]
To = Annotated[OptionalDay, Param(name="to", description="Last day (YYYY-MM-DD); default "
                                  "today.")]
Day = Annotated[OptionalDay, Param(description="The day (YYYY-MM-DD); default today.")]
ActivityRef = Annotated[str, Param(description="The activity's id (from list_activities)."),
                        Field(min_length=1, max_length=64)]
OptionalActivity = Annotated[str | None, Param(
    description="One activity's curve (its id); leave out for a period (from/to)."),
    Field(max_length=64)]
Durations = Annotated[list[Annotated[int, Field(ge=1, le=86400)]] | None, Param(
    description="Durations in seconds, among the stored ones (1, 5, 10, 30, 60, 120, 300, "
    "600, 1200, 1800, 3600, ... 86400); default a 14-point selection."),
    Field(max_length=80)]

__all__ = ["DATE", "ActivityRef", "Day", "DayText", "Durations", "From", "OptionalActivity",
           "OptionalDay", "RequiredDay", "To"]
