"""Parameter types the analysis tools share (descriptions and constraints in the schema)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, WithJsonSchema

from mcpcast import Param

DATE = r"^\d{4}-\d{2}-\d{2}$"
# A day is validated by the pattern and advertised as JSON Schema's "date" format: the
# same YYYY-MM-DD, said in a third of the bytes of every tools/list.
DAY_SCHEMA = WithJsonSchema({"type": "string", "format": "date"})

From = Annotated[str | None, Param(name="from", description="First day."),
                 Field(pattern=DATE), DAY_SCHEMA]
To = Annotated[str | None, Param(name="to", description="Last day; default today."),
               Field(pattern=DATE), DAY_SCHEMA]
Day = Annotated[str | None, Param(description="Default today."), Field(pattern=DATE),
                DAY_SCHEMA]
ActivityRef = Annotated[str, Param(description="From list_activities."),
                        Field(min_length=1, max_length=64)]
OptionalActivity = Annotated[str | None, Param(
    description="One activity's curve; leave out for a period."), Field(max_length=64)]
Durations = Annotated[list[Annotated[int, Field(ge=1, le=86400)]] | None, Param(
    description="Stored ones: 1, 5, 60, 300, 1200, 3600 ... 86400; default 14, 1 s to 3 h."),
    Field(max_length=80)]

__all__ = ["DATE", "DAY_SCHEMA", "ActivityRef", "Day", "Durations", "From", "OptionalActivity",
           "To"]
