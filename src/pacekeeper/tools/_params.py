"""Parameter types the analysis tools share (descriptions and constraints in the schema)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field, WithJsonSchema

from mcpcast import Param
from pacekeeper.fitness._inputs import parse_day

DATE = r"^\d{4}-\d{2}-\d{2}$"
# A day is validated by the pattern and advertised as JSON Schema's "date" format: the
# same YYYY-MM-DD, said in a third of the bytes of every tools/list.
DAY_SCHEMA = WithJsonSchema({"type": "string", "format": "date"})



def _in_range(text: str | None) -> str | None:
    """The HTTP routes' check of a day (`parse_day`), at the tool's boundary: a day
    outside the supported range is the client's -32602 naming the argument (issue 28)."""
    if text is not None:
        parse_day(text)
    return text


# A day argument: YYYY-MM-DD (the pattern validates it) within the supported range,
# advertised as the "date" format. `DayText` is the same without the pattern (arguments
# that never declared one keep accepting what they accepted).
DayText = Annotated[str | None, AfterValidator(_in_range), DAY_SCHEMA]
OptionalDay = Annotated[str | None, Field(pattern=DATE), AfterValidator(_in_range), DAY_SCHEMA]
RequiredDay = Annotated[str, Field(pattern=DATE), AfterValidator(_in_range), DAY_SCHEMA]
From = Annotated[OptionalDay, Param(name="from")]
To = Annotated[OptionalDay, Param(name="to", description="Default today.")]
Day = Annotated[OptionalDay, Param(description="Default today.")]
ActivityRef = Annotated[str, Param(description="From list_activities."),
                        Field(min_length=1, max_length=64)]
OptionalActivity = Annotated[str | None, Param(description="Leave out for a period."),
                             Field(max_length=64)]
Durations = Annotated[list[Annotated[int, Field(ge=1, le=86400)]] | None, Param(
    description="Stored ones: 1, 5, 60, 300, 1200, 3600 ... 86400; default 14, 1 s to 3 h."),
    Field(max_length=80)]
# Power figures are one sport's (a run's power is not a crank's): rides unless asked. A
# plain string: the service checks it against the sports and its message lists them (an
# enum here would cost every tools/list 100 bytes per tool that takes a sport).
PowerSport = Annotated[str, Param()]
AnySport = Annotated[str | None, Param()]

__all__ = [
    "DATE",
    "DAY_SCHEMA",
    "ActivityRef",
    "AnySport",
    "Day",
    "DayText",
    "Durations",
    "From",
    "OptionalActivity",
    "OptionalDay",
    "PowerSport",
    "RequiredDay",
    "To",
]
