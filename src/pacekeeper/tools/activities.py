"""Tools over a person's activities: list, read, streams, import, delete."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal, cast

from pydantic import Field

from mcpcast import Param, ToolError, resource, tool
from pacekeeper.fitness import ActivityFilter, Owner, activity_json
from pacekeeper.fitness import _inputs as inputs
from pacekeeper.fitness._views import outcome_json
from pacekeeper.fitness.importers import ImportRejected
from pacekeeper.tools._base import (
    DESTRUCTIVE,
    READ,
    READ_ONLY,
    WRITE,
    WRITES,
    ToolGroup,
    service_errors,
)
from pacekeeper.tools._shapes import (
    ActivityDetail,
    ActivityPage,
    ActivitySummary,
    Deleted,
    ImportResult,
    SportName,
    StreamName,
    StreamsResult,
)
from pacekeeper.tools.apps import ACTIVITY, ui_meta

ActivityId = Annotated[str, Param(description="The activity's id (from list_activities).")]


def _km(meters: float | None) -> str:
    return "?" if meters is None else f"{meters / 1000:.1f} km"


def one_line(a: dict[str, Any]) -> str:
    return f"{a['start_time'][:10]} {a['sport']} {_km(a['distance_m'])} {a['name'] or ''}".strip()


class ActivityTools(ToolGroup):
    @tool(
        name="list_activities",
        description="The user's activities, newest first, as compact summaries (distance, "
        "time, heart rate, power, training load). Filter by sport, date range or a word in "
        "the name; pass next_cursor back as cursor for the next page.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def list_activities(
        self,
        owner: Owner,
        sport: Annotated[SportName | None, Param(description="Only this sport.")] = None,
        after: Annotated[str | None, Param(
            description="Only activities starting at or after this ISO date/time.")] = None,
        before: Annotated[str | None, Param(
            description="Only activities starting before this ISO date/time.")] = None,
        text: Annotated[str | None, Param(
            description="Only activities whose name contains this text.")] = None,
        limit: Annotated[int, Param(description="Activities per page (1-200)."),
                         Field(ge=1, le=200)] = 20,
        cursor: Annotated[str | None, Param(
            description="next_cursor of the previous page.")] = None,
    ) -> ActivityPage:
        async with service_errors():
            filters = ActivityFilter(sport=sport, after=inputs.moment(after, "after"),
                                     before=inputs.moment(before, "before"), text=text or None)
            page = await self.fitness().page(owner, filters, limit=limit, cursor=cursor)
        items = [cast(ActivitySummary, activity_json(a)) for a in page.items]
        more = " (more: pass next_cursor)" if page.next_cursor else ""
        return ActivityPage(summary=f"{len(items)} activities{more}", activities=items,
                            next_cursor=page.next_cursor)

    @tool(
        name="get_activity",
        meta=ui_meta(ACTIVITY),
        description="One activity in detail: summary, laps, every computed metric (normalized "
        "power, TSS, IF, zones, curves), the recording device's own figures (shown over "
        "ours, kept in computed), a multisport file's legs, a pool swim's lengths, pace and SWOLF.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_activity(self, owner: Owner, activity_id: ActivityId) -> ActivityDetail:
        async with service_errors():
            found = await self.fitness().get(owner, inputs.activity_id(activity_id))
        return cast(ActivityDetail, activity_json(found, detail=True))

    @tool(
        name="get_activity_streams",
        description="An activity's samples (power, heart rate, speed, ...) downsampled to at "
        "most max_points points (bucket means; time is seconds from the start).",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_activity_streams(
        self,
        owner: Owner,
        activity_id: ActivityId,
        keys: Annotated[list[StreamName] | None, Param(
            description="Streams to return (default: all the activity has).")] = None,
        max_points: Annotated[int, Param(description="At most this many points (2-2000)."),
                              Field(ge=2, le=2000)] = 500,
    ) -> StreamsResult:
        async with service_errors():
            streams = await self.fitness().streams(
                owner, inputs.activity_id(activity_id), keys=list(keys) if keys else None,
                max_points=max_points)
        return StreamsResult(activity_id=activity_id, points=len(streams),
                             streams=cast(dict[str, list[float | None]], streams.to_json()))

    @tool(
        name="import_activity",
        description="Import an activity file (FIT, GPX or TCX, optionally gzipped, or a "
        "Strava bulk-export zip), sent base64-encoded. A file already imported is "
        "recognised as a duplicate; the same ride from a provider is merged.",
        annotations=WRITES,
        scopes=(WRITE,),
    )
    async def import_activity(
        self,
        owner: Owner,
        content_base64: Annotated[str, Param(description="The file's bytes, base64.")],
        filename: Annotated[str | None, Param(
            description="The file's name (a hint for its format).")] = None,
    ) -> ImportResult:
        try:
            data = base64.b64decode(content_base64, validate=True)
        except (binascii.Error, ValueError):
            raise ToolError("content_base64 is not valid base64") from None
        if not data:
            raise ToolError("the file is empty")
        try:
            async with service_errors():
                outcomes = await self.fitness().import_file(owner, data, filename)
        except ImportRejected as exc:
            raise ToolError(f"rejected ({exc.reason}): {exc.message}") from None
        o = outcomes[0]
        if len(outcomes) == 1 and o.activity is not None:
            status: Literal["imported", "duplicate", "merged"] = (
                "duplicate" if o.duplicate else "merged" if o.merged else "imported")
            detail = cast(ActivityDetail, activity_json(o.activity, detail=True))
            return ImportResult(summary=f"{status}: {one_line(dict(detail))}", status=status,
                                duplicate=o.duplicate, activity=detail)
        results = [outcome_json(o) for o in outcomes]
        imported = sum(1 for r in results if r["status"] != "rejected")
        return ImportResult(summary=f"{imported} of {len(results)} files imported",
                            status="imported" if imported else "rejected",
                            duplicate=False, results=results)

    @tool(
        name="delete_activity",
        description="Delete one activity with its streams and files. Cannot be undone.",
        annotations=DESTRUCTIVE,
        scopes=(WRITE,),
    )
    async def delete_activity(self, owner: Owner, activity_id: ActivityId) -> Deleted:
        async with service_errors():
            await self.fitness().delete(owner, inputs.activity_id(activity_id))
        return Deleted(deleted=True, activity_id=activity_id)

    @resource(uri="activity://{id}", name="activity", mime_type="application/json",
              description="One activity in detail (the get_activity result).")
    async def activity_resource(self, id: str, owner: Owner) -> dict[str, Any]:
        async with service_errors():
            found = await self.fitness().get(owner, inputs.activity_id(id))
        return activity_json(found, detail=True)


__all__ = ["ActivityTools"]
