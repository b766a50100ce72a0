"""Tools over a person's activities: list, read, streams, import, delete."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal, cast

from pydantic import Field

from mcpcast import Param, ToolError, resource, tool
from pacekeeper.fitness import DEFAULT_STREAM_POINTS, ActivityFilter, activity_json
from pacekeeper.fitness import _inputs as inputs
from pacekeeper.fitness._figures import activity_detail, activity_item, streams_answer
from pacekeeper.fitness._views import outcome_json
from pacekeeper.fitness.importers import ImportRejected
from pacekeeper.owner import Owner
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
    ActivityItem,
    ActivityPage,
    Deleted,
    ImportOutcome,
    ImportResult,
    SportName,
    StreamName,
    StreamsResult,
)
from pacekeeper.tools.apps import ACTIVITY, ui_meta

ActivityId = Annotated[str, Param(description="From list_activities.")]


def _km(meters: float | None) -> str:
    return "?" if meters is None else f"{meters / 1000:.1f} km"


def one_line(a: dict[str, Any]) -> str:
    return f"{a['start_time'][:10]} {a['sport']} {_km(a['distance_m'])} {a['name'] or ''}".strip()


def _outcome(found: dict[str, Any]) -> ImportOutcome:
    """A bulk import's file: its activity as a list_activities line."""
    outcome = {k: v for k, v in found.items() if k not in ("activity", "duplicate")}
    if "activity" in found:
        outcome["activity"] = activity_item(found["activity"])
    return cast(ImportOutcome, outcome)


class ActivityTools(ToolGroup):
    @tool(
        name="list_activities",
        description="Find activities and their ids (newest first) by sport, dates or a word of the "
                    "name. Pace in min/km (min/mi if imperial), swims min/100m. More: "
                    "cursor=next_cursor.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def list_activities(
        self,
        owner: Owner,
        sport: Annotated[SportName | None, Param(description="Only this sport.")] = None,
        after: Annotated[str | None, Param(
            description="From this ISO date/time.")] = None,
        before: Annotated[str | None, Param(
            description="Before this ISO date/time.")] = None,
        text: Annotated[str | None, Param(
            description="A word of the name.")] = None,
        limit: Annotated[int, Param(),
                         Field(ge=1, le=200)] = 20,
        cursor: Annotated[str | None, Param(
            description="next_cursor of the last page.")] = None,
    ) -> ActivityPage:
        async with service_errors():
            filters = ActivityFilter(sport=sport, after=inputs.moment(after, "after"),
                                     before=inputs.moment(before, "before"), text=text or None)
            page = await self.fitness().page(owner, filters, limit=limit, cursor=cursor)
            units = (await self.fitness().athlete(owner))["settings"].get("units", "metric")
        items = [cast(ActivityItem, activity_item(activity_json(a), units))
                 for a in page.items]
        more = " (more: pass next_cursor)" if page.next_cursor else ""
        note = await self.withheld_note(owner)
        return ActivityPage(summary=f"{len(items)} activities{more}"
                            + (f". {note}" if note else ""), activities=items,
                            next_cursor=page.next_cursor)

    @tool(
        name="get_activity",
        meta=ui_meta(ACTIVITY),
        description="One activity in full (units in the names): laps, metrics (NP, TSS, IF, "
                    "zones), the device's totals (ours in computed), multisport legs, pool lengths "
                    "and SWOLF.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_activity(self, owner: Owner, activity_id: ActivityId) -> ActivityDetail:
        async with service_errors():
            found = await self.fitness().get(owner, inputs.activity_id(activity_id))
        return cast(ActivityDetail, activity_detail(activity_json(found, detail=True)))

    @tool(
        name="get_activity_streams",
        description="An activity's samples for a chart or interval question: power W, heartrate "
                    "bpm, speed m/s, cadence, altitude m...; max_points bucket means, time s from "
                    "the start.",
        annotations=READ_ONLY,
        scopes=(READ,),
    )
    async def get_activity_streams(
        self,
        owner: Owner,
        activity_id: ActivityId,
        keys: Annotated[list[StreamName] | None, Param(
            description="Default all.")] = None,
        # An assistant's default is smaller than a chart's; its ceiling is the HTTP default.
        max_points: Annotated[int, Param(),
                              Field(ge=2, le=DEFAULT_STREAM_POINTS)] = 500,
    ) -> StreamsResult:
        async with service_errors():
            streams = await self.fitness().streams(
                owner, inputs.activity_id(activity_id), keys=list(keys) if keys else None,
                max_points=max_points)
        shown, units = streams_answer(dict(streams.to_json()))
        return StreamsResult(activity_id=activity_id, points=len(streams), streams=shown,
                             units=units)

    @tool(
        name="import_activity",
        description="Import a FIT, GPX or TCX file (gzipped too) or a Strava export zip, as "
                    "base64. A file seen before is a duplicate; a provider's copy is merged.",
        annotations=WRITES,
        scopes=(WRITE,),
    )
    async def import_activity(
        self,
        owner: Owner,
        content_base64: Annotated[str, Param()],
        filename: Annotated[str | None, Param(
            description="A hint for its format.")] = None,
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
            summary = activity_json(o.activity)
            result = ImportResult(summary=f"{status}: {one_line(summary)}", status=status,
                                  duplicate=o.duplicate,
                                  activity=cast(ActivityItem, activity_item(summary)))
            if o.warnings:  # read in part: said first, where a reader looks (FIG-11)
                result["warnings"] = list(o.warnings)
                result["summary"] = f"{'; '.join(o.warnings)}. {result['summary']}"
            return result
        results = [_outcome(outcome_json(o)) for o in outcomes]
        imported = sum(1 for r in results if r["status"] != "rejected")
        return ImportResult(summary=f"{imported} of {len(results)} files imported",
                            status="imported" if imported else "rejected",
                            duplicate=False, results=results)

    @tool(
        name="delete_activity",
        description="Delete an activity with its streams and files; cannot be undone.",
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
        return activity_detail(activity_json(found, detail=True))  # as get_activity says it


__all__ = ["ActivityTools"]
