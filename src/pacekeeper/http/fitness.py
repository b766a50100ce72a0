"""The fitness data over HTTP: import, list, read, streams, delete, athlete, daily health.

Every handler resolves the caller through the one principal resolver (JWT from cookie
or header; CSRF for cookie callers on writes; the tenant's rate limit) and hands the
service the caller's own user id: there is no parameter that names another person.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import orjson
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from pacekeeper.auth import Principal
from pacekeeper.connections import PROVIDERS
from pacekeeper.errors import ApiError, ValidationFailed
from pacekeeper.fitness import _inputs as inputs
from pacekeeper.fitness._records import ActivityFilter, Owner
from pacekeeper.fitness._service import DEFAULT_STREAM_POINTS, FitnessService
from pacekeeper.fitness._views import activity_event, activity_json, daily_json, outcome_json
from pacekeeper.fitness.importers import ImportRejected
from pacekeeper.http._common import JSONResponse, read_json_object, services
from pacekeeper.http.fitness_openapi import fitness_paths

IMPORT_PATH = "/api/activities/import"


def fitness(request: Request) -> FitnessService:
    return services(request).fitness


async def _caller(request: Request) -> tuple[Principal, Owner]:
    principal = await services(request).resolver.require(request.method, request.headers)
    return principal, Owner(principal.user_id, principal.tenant_id)


def _rate(principal: Principal) -> dict[str, str]:
    return principal.rate.headers() if principal.rate else {}


def rejection(exc: ImportRejected) -> ApiError:
    """413 for a file over the limit, 400 for the rest, with the reason as the code."""
    status = 413 if exc.reason == "too_large" else 400
    code = "payload_too_large" if exc.reason == "too_large" else f"import_{exc.reason}"
    return ApiError(exc.message, code=code, status=status)


async def import_activity(request: Request) -> Response:
    """POST /api/activities/import (multipart field `file`): 201 with the stored activity,
    200 with `"duplicate": true` for a file already imported, 400/413 when rejected
    (nothing stored). A Strava bulk-export zip answers 200 with one result per member."""
    principal, owner = await _caller(request)
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise ValidationFailed("send the file as multipart/form-data in a field named 'file'")
    try:
        form = await request.form(max_files=1, max_fields=10)
    except Exception:  # the multipart parser's errors carry its internals; say it plainly
        raise ValidationFailed("the multipart body could not be read") from None
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise ValidationFailed("send the file in a multipart field named 'file'")
    data = await upload.read()
    if not data:
        raise ApiError("the file is empty", code="import_empty", status=400)
    try:
        outcomes = await fitness(request).import_file(owner, data, upload.filename)
    except ImportRejected as exc:
        raise rejection(exc) from None
    live = services(request).live
    if live is not None:  # the person's Live panel (pacekeeper.live)
        for outcome in outcomes:
            if outcome.activity is not None and not outcome.duplicate and not outcome.merged:
                await live.publish(owner.user_id, activity_event(outcome.activity, "import"))
    headers = _rate(principal)
    if len(outcomes) == 1 and outcomes[0].rejected is None and outcomes[0].name == upload.filename:
        body = outcome_json(outcomes[0])
        created = not outcomes[0].duplicate and not outcomes[0].merged
        return JSONResponse(body, 201 if created else 200, headers=headers)
    return JSONResponse({"results": [outcome_json(o) for o in outcomes]}, 200, headers=headers)


def _int(text: str | None, name: str, default: int) -> int:
    if text is None or text == "":
        return default
    try:
        return int(text)
    except ValueError:
        raise ValidationFailed(f"{name} must be a whole number") from None


async def list_activities(request: Request) -> Response:
    """GET /api/activities?sport=&after=&before=&text=&limit=&cursor= (newest first)."""
    principal, owner = await _caller(request)
    q = request.query_params
    filters = ActivityFilter(
        sport=inputs.sport(q.get("sport")),
        after=inputs.moment(q.get("after"), "after"),
        before=inputs.moment(q.get("before"), "before"),
        text=(q.get("text") or None),
    )
    page = await fitness(request).page(owner, filters, limit=_int(q.get("limit"), "limit", 50),
                                       cursor=q.get("cursor") or None)
    return JSONResponse({"activities": [activity_json(a) for a in page.items],
                         "next_cursor": page.next_cursor}, headers=_rate(principal))


def _activity_id(request: Request) -> uuid.UUID:
    return inputs.activity_id(str(request.path_params["activity_id"]))


async def activity(request: Request) -> Response:
    """GET /api/activities/{id} (detail), PATCH /api/activities/{id} {name?, sport?,
    description?, notes?, gear_id?} (the detail after the change) and DELETE
    /api/activities/{id}."""
    principal, owner = await _caller(request)
    activity_id = _activity_id(request)
    if request.method == "PATCH":
        original = await read_json_object(request)
        changes = dict(original)
        if "gear_id" in changes:  # the gear's own service: both must be the caller's
            gear = services(request).gear
            if gear is None:
                raise ApiError("gear is not available on this server", status=503)
            chosen = changes.pop("gear_id")
            if chosen is not None and not isinstance(chosen, str):
                raise ValidationFailed("gear_id must be a gear's id or null")
            await gear.assign(owner, activity_id, chosen)
        gear_only = "gear_id" in original and not changes
        found = (await fitness(request).get(owner, activity_id) if gear_only
                 else await fitness(request).edit(owner, activity_id, changes))
        return JSONResponse(activity_json(found, detail=True), headers=_rate(principal))
    if request.method == "DELETE":
        await fitness(request).delete(owner, activity_id)
        return Response(status_code=204, headers=_rate(principal))
    found = await fitness(request).get(owner, activity_id)
    return JSONResponse(activity_json(found, detail=True), headers=_rate(principal))


async def activity_streams(request: Request) -> Response:
    """GET /api/activities/{id}/streams?keys=power,heartrate&max_points=500."""
    principal, owner = await _caller(request)
    q = request.query_params
    keys = [k.strip() for k in q["keys"].split(",") if k.strip()] if q.get("keys") else None
    # Absent or blank: the default; any number, 0 included, is checked by the service.
    max_points = (DEFAULT_STREAM_POINTS if not q.get("max_points")
                  else _int(q.get("max_points"), "max_points", 0))
    streams = await fitness(request).streams(owner, _activity_id(request), keys=keys,
                                             max_points=max_points)
    ident = str(request.path_params["activity_id"])
    # Up to MAX_STREAM_POINTS x 16 channels: rendered by a worker thread (issue 28).
    body = await asyncio.to_thread(lambda: orjson.dumps(
        {"activity_id": ident, "points": len(streams), "streams": streams.to_json()}))
    return Response(body, media_type="application/json", headers=_rate(principal))


async def athlete(request: Request) -> Response:
    """GET /api/athlete, PATCH /api/athlete {"ftp_watts": 250, "valid_from": "2026-01-01"}
    (with ``"sport": "run"`` the thresholds given are the run's)."""
    principal, owner = await _caller(request)
    if request.method == "PATCH":
        data = await read_json_object(request)
        valid_from = data.pop("valid_from", None)
        if valid_from is not None and (not isinstance(valid_from, str) or not valid_from):
            raise ValidationFailed("valid_from must be a date (YYYY-MM-DD)")
        sport = data.pop("sport", None)
        if sport is not None and not isinstance(sport, str):
            raise ValidationFailed("sport must be ride, run or swim")
        day = inputs.day(valid_from, "valid_from")
        body = await fitness(request).update_athlete(owner, data, day, sport)
        return JSONResponse(body, headers=_rate(principal))
    return JSONResponse(await fitness(request).athlete(owner), headers=_rate(principal))


async def daily(request: Request) -> Response:
    """GET /api/daily?from=YYYY-MM-DD&to=YYYY-MM-DD (both required)."""
    principal, owner = await _caller(request)
    start = inputs.day(request.query_params.get("from"), "from")
    end = inputs.day(request.query_params.get("to"), "to")
    if start is None or end is None:
        raise ValidationFailed("from and to are required (YYYY-MM-DD)")
    days = await fitness(request).daily(owner, start, end)
    return JSONResponse({"days": daily_json(days)}, headers=_rate(principal))


def _provider(request: Request, name: str) -> str:
    provider = str(name).strip().lower()
    if provider not in PROVIDERS:
        raise ValidationFailed(f"provider must be one of {', '.join(PROVIDERS)}")
    return provider


async def start_sync(request: Request) -> Response:
    """POST /api/sync {"provider": "strava"}: 202 with the status URL; the sync is queued
    (one per person and provider; a second start while one waits is 202 too, with
    ``"started": false``)."""
    principal, owner = await _caller(request)
    data = await read_json_object(request)
    provider = _provider(request, str(data.get("provider", "")))
    svc = services(request)
    if svc.syncs is None or svc.jobs is None or svc.connections is None:
        raise ApiError("provider sync is not available on this server", status=503)
    status = await svc.connections.status(owner.user_id)
    if not status.get(provider, {}).get("connected"):
        raise ApiError(f"{provider} is not connected", code="not_connected", status=409)
    # Queued (pacekeeper.jobs); False when the same sync is already waiting in the queue.
    started = await svc.jobs.enqueue_sync(owner, provider)
    url = f"/api/sync/{provider}"
    return JSONResponse({"provider": provider, "started": started, "status_url": url}, 202,
                        headers={"Location": url, **_rate(principal)})


async def sync_status(request: Request) -> Response:
    """GET /api/sync/{provider}: the sync's state (status, cursor, last report)."""
    principal, owner = await _caller(request)
    provider = _provider(request, request.path_params["provider"])
    state = await fitness(request).store.sync_state(owner.user_id, provider)
    if state is None:
        body: dict[str, Any] = {"provider": provider, "status": "never"}
    else:
        body = {"provider": provider, "status": state.status,
                "cursor": state.cursor_at.isoformat() if state.cursor_at else None,
                "started_at": state.started_at.isoformat() if state.started_at else None,
                "finished_at": state.finished_at.isoformat() if state.finished_at else None,
                "report": state.detail}
    return JSONResponse(body, headers=_rate(principal))


async def delete_provider_data(request: Request) -> Response:
    """DELETE /api/data/{provider}: forget what one provider brought (its activities
    that have no other source, its daily health, its sync state)."""
    principal, owner = await _caller(request)
    provider = _provider(request, request.path_params["provider"])
    deleted = await fitness(request).delete_provider_data(owner, provider)
    return JSONResponse({"provider": provider, "deleted_activities": deleted},
                        headers=_rate(principal))


def fitness_routes() -> list[BaseRoute]:
    return [
        Route(IMPORT_PATH, import_activity, methods=["POST"]),
        Route("/api/activities", list_activities, methods=["GET"]),
        # :uuid, so that /api/activities/import answers 405 to a GET, not "no such activity"
        Route("/api/activities/{activity_id:uuid}", activity,
              methods=["GET", "PATCH", "DELETE"]),
        Route("/api/activities/{activity_id:uuid}/streams", activity_streams, methods=["GET"]),
        Route("/api/athlete", athlete, methods=["GET", "PATCH"]),
        Route("/api/daily", daily, methods=["GET"]),
        Route("/api/sync", start_sync, methods=["POST"]),
        Route("/api/sync/{provider}", sync_status, methods=["GET"]),
        Route("/api/data/{provider}", delete_provider_data, methods=["DELETE"]),
    ]


__all__ = ["IMPORT_PATH", "fitness_paths", "fitness_routes", "rejection"]
