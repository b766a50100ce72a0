"""Garmin Health API emulation: OAuth 1.0a and OAuth 2.0 PKCE, summaries, backfill."""

from __future__ import annotations

import asyncio
import secrets
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from ..sandbox import _generator as gen
from ..sandbox import _wellness as well
from ..sandbox._consent import consent_page, error_page
from ..sandbox._guard import Flavor, endpoint, generic_quota_headers, verify_oauth1
from ..sandbox._oauth2_routes import OAuth2Flavor, oauth2_routes
from ..sandbox._state import Grant, RequestToken, SandboxState
from ._training_sandbox import TrainingCalendar, workout_problem

_TYPES = {"Ride": "ROAD_BIKING", "Run": "RUNNING"}
_MAX_WINDOW_S = 86_400
_UPLOAD_DELAY_S = 300  # a device syncs a few minutes after the activity ends
_REST = "/wellness-api/rest"
_SAMPLE_FIELDS = (
    ("altitude", "elevationInMeters"), ("heartrate", "heartRate"),
    ("velocity", "speedMetersPerSecond"), ("distance", "totalDistanceInMeters"),
    ("watts", "powerInWatts"), ("cadence", "bikeCadenceInRPM"), ("cadence", "stepsPerMinute"),
)


def user_id(athlete_id: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"pacekeeper-sandbox-garmin:{athlete_id}"))


def error(status: int, message: str) -> dict[str, Any]:
    return {"errorMessage": message}


def activity_summary(act: gen.SandboxActivity) -> dict[str, Any]:
    s = gen.summary(act.id)
    st = gen.streams(act.id)
    body: dict[str, Any] = {
        "userId": user_id(act.athlete_id),
        "summaryId": f"{act.id}",
        "activityId": act.id,
        "activityName": act.name,
        "activityType": _TYPES[act.sport],
        "durationInSeconds": act.duration_s,
        "startTimeInSeconds": int(act.start.timestamp()),
        "startTimeOffsetInSeconds": 0,
        "averageHeartRateInBeatsPerMinute": round(s.average_heartrate),
        "maxHeartRateInBeatsPerMinute": s.max_heartrate,
        "averageSpeedInMetersPerSecond": s.average_speed,
        "maxSpeedInMetersPerSecond": s.max_speed,
        "distanceInMeters": s.distance,
        "activeKilocalories": round(s.calories),
        "totalElevationGainInMeters": s.elevation_gain,
        "deviceName": "Sandbox Edge",
        "manual": False,
    }
    if act.sport == "Ride":
        body["averageBikeCadenceInRoundsPerMinute"] = s.average_cadence
        body["averagePowerInWatts"] = s.average_watts
        body["maxPowerInWatts"] = s.max_watts
    else:
        body["averageRunCadenceInStepsPerMinute"] = s.average_cadence * 2
    if not act.trainer:
        body["startingLatitudeInDegree"], body["startingLongitudeInDegree"] = st.latlng[0]
    return body


def activity_details(act: gen.SandboxActivity) -> dict[str, Any]:
    summary = activity_summary(act)
    st = gen.streams(act.id)
    t0 = summary["startTimeInSeconds"]
    ride = act.sport == "Ride"
    samples = []
    for i, t in enumerate(st.time):
        sample: dict[str, Any] = {
            "startTimeInSeconds": t0 + t,
            "elevationInMeters": st.altitude[i],
            "heartRate": st.heartrate[i],
            "speedMetersPerSecond": st.velocity[i],
            "totalDistanceInMeters": st.distance[i],
            "timerDurationInSeconds": t,
            "clockDurationInSeconds": t,
            "movingDurationInSeconds": t,
            "powerInWatts": st.watts[i],
        }
        sample["bikeCadenceInRPM" if ride else "stepsPerMinute"] = (
            st.cadence[i] if ride else st.cadence[i] * 2
        )
        if not act.trainer:
            sample["latitudeInDegree"], sample["longitudeInDegree"] = st.latlng[i]
        for field, key in _SAMPLE_FIELDS:
            if field in st.absent:  # a recording without that sensor: no such field
                sample.pop(key, None)
        samples.append(sample)
    top = {k: summary[k] for k in ("userId", "summaryId", "activityId")}
    rest = {k: v for k, v in summary.items() if k not in top}
    return {**top, "summary": rest, "samples": samples}


def daily_summary(athlete_id: int, day: date) -> dict[str, Any]:
    d = well.daily(athlete_id, day)
    return {
        "userId": user_id(athlete_id),
        "summaryId": f"x{athlete_id}-{day.isoformat()}",
        "calendarDate": day.isoformat(),
        "startTimeInSeconds": int(datetime.combine(day, datetime.min.time(), UTC).timestamp()),
        "startTimeOffsetInSeconds": 0,
        "durationInSeconds": 86_400,
        "steps": d.steps,
        "distanceInMeters": round(d.distance_km * 1000, 1),
        "activeKilocalories": d.activity_calories,
        "bmrKilocalories": d.bmr_calories,
        "floorsClimbed": d.floors,
        "moderateIntensityDurationInSeconds": d.fairly_min * 60,
        "vigorousIntensityDurationInSeconds": d.very_min * 60,
        "restingHeartRateInBeatsPerMinute": d.resting_hr,
        "averageHeartRateInBeatsPerMinute": d.avg_hr,
    }


def sleep_summary(athlete_id: int, day: date) -> dict[str, Any]:
    s = well.sleep(athlete_id, day)
    return {
        "userId": user_id(athlete_id),
        "summaryId": f"x{athlete_id}-sleep-{day.isoformat()}",
        "calendarDate": day.isoformat(),
        "startTimeInSeconds": int(s.start.timestamp()),
        "startTimeOffsetInSeconds": 0,
        "durationInSeconds": s.duration_s,
        "deepSleepDurationInSeconds": s.deep_min * 60,
        "lightSleepDurationInSeconds": s.light_min * 60,
        "remSleepInSeconds": s.rem_min * 60,
        "awakeDurationInSeconds": s.wake_min * 60,
        "validation": "DEVICE",
    }


def _upload_time(kind: str, athlete_id: int, day: date) -> tuple[float, dict[str, Any]] | None:
    if kind in ("activities", "activityDetails"):
        act = gen.activity_on(athlete_id, day)
        if act is None:
            return None
        at = act.start.timestamp() + act.duration_s + _UPLOAD_DELAY_S
        return at, activity_summary(act) if kind == "activities" else activity_details(act)
    if kind == "dailies":  # the finished day is uploaded just after midnight
        at = datetime.combine(day + timedelta(days=1), datetime.min.time(), UTC).timestamp() + 600
        return at, daily_summary(athlete_id, day)
    s = well.sleep(athlete_id, day)
    return s.end.timestamp() + _UPLOAD_DELAY_S, sleep_summary(athlete_id, day)


class GarminRoutes:
    def __init__(self, state: SandboxState) -> None:
        self.state = state
        self.backfills: set[tuple[int, str, int, int]] = set()
        self.training = TrainingCalendar()

    async def user_id(self, request: Request, grant: Grant) -> Any:
        return {"userId": user_id(grant.athlete_id)}

    async def summaries(self, request: Request, grant: Grant) -> Any:
        kind = request.path_params["kind"]
        if kind not in ("activities", "activityDetails", "dailies", "sleeps"):
            return JSONResponse(error(404, "unknown summary type"), status_code=404)
        try:
            start = int(request.query_params["uploadStartTimeInSeconds"])
            end = int(request.query_params["uploadEndTimeInSeconds"])
        except (KeyError, ValueError):
            return JSONResponse(error(400, "upload start and end are required"), status_code=400)
        if not 0 < end - start <= _MAX_WINDOW_S:
            return JSONResponse(error(400, "time range must be 1..86400 seconds"), status_code=400)
        now = self.state.clock()
        first = datetime.fromtimestamp(start, UTC).date() - timedelta(days=2)

        def build() -> list[dict[str, Any]]:
            found = []
            for offset in range(4):
                hit = _upload_time(kind, grant.athlete_id, first + timedelta(days=offset))
                if hit is not None and start <= hit[0] < end and hit[0] <= now:
                    found.append(hit[1])
            return found

        # Synthesising 1 Hz samples is CPU work: off the event loop, which the sandbox
        # shares with the service it is mounted in.
        return await asyncio.to_thread(build)

    async def backfill(self, request: Request, grant: Grant) -> Any:
        try:
            start = int(request.query_params["summaryStartTimeInSeconds"])
            end = int(request.query_params["summaryEndTimeInSeconds"])
        except (KeyError, ValueError):
            return JSONResponse(error(400, "summary start and end are required"), status_code=400)
        if not 0 < end - start <= 90 * 86_400:
            return JSONResponse(error(400, "a backfill covers 1 s to 90 days"), status_code=400)
        key = (grant.athlete_id, request.path_params["kind"], start, end)
        if key in self.backfills:
            return JSONResponse(error(409, "duplicate backfill request"), status_code=409)
        self.backfills.add(key)
        return Response(status_code=202)

    # -- Training API V2 ---------------------------------------------------------------

    async def create_workout(self, request: Request, grant: Grant) -> Any:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse(error(400, "body is not JSON"), status_code=400)
        problem = workout_problem(body)
        if problem is not None:
            return JSONResponse(error(400, problem), status_code=400)
        return self.training.add_workout(grant.athlete_id, body)

    async def workout(self, request: Request, grant: Grant) -> Any:
        found = self.training.workout(grant.athlete_id, request.path_params["id"])
        if found is None:
            return JSONResponse(error(404, "workout not found"), status_code=404)
        if request.method == "DELETE":
            self.training.delete_workout(grant.athlete_id, found["workoutId"])
            return Response(status_code=204)
        return found

    async def create_schedule(self, request: Request, grant: Grant) -> Any:
        try:
            body = await request.json()
            day = date.fromisoformat(body["date"])
            workout_id = int(body["workoutId"])
        except (ValueError, KeyError, TypeError):
            return JSONResponse(error(400, "workoutId and date (yyyy-mm-dd) are required"),
                                status_code=400)
        if self.training.workout(grant.athlete_id, str(workout_id)) is None:
            return JSONResponse(error(404, "workout not found"), status_code=404)
        return self.training.schedule(grant.athlete_id, workout_id, day)

    async def schedules(self, request: Request, grant: Grant) -> Any:
        try:
            start = date.fromisoformat(request.query_params["startDate"])
            end = date.fromisoformat(request.query_params["endDate"])
        except (KeyError, ValueError):
            return JSONResponse(error(400, "startDate and endDate are required"), status_code=400)
        return self.training.schedules(grant.athlete_id, start, end)

    async def deregister(self, request: Request, grant: Grant) -> Any:
        self.state.revoke_athlete("garmin", grant.athlete_id)
        return Response(status_code=204)

    # -- OAuth 1.0a --------------------------------------------------------------------

    async def request_token(self, request: Request) -> Response:
        oauth = await verify_oauth1(self.state, request, lambda _t: None)
        callback = oauth.redirect_uri if oauth else None
        if oauth is None or not callback or not urlsplit(callback).scheme.startswith("http"):
            return PlainTextResponse("invalid signature or callback", status_code=401)
        if not self.state.redirect_allowed(callback.split("?", 1)[0]):
            # The confirm page redirects there, on deny too: registered callbacks only
            # (their query is the client's: OAuth 1.0a carries its state there).
            return PlainTextResponse("callback is not registered", status_code=401)
        token = secrets.token_urlsafe(16)
        self.state.request_tokens[token] = RequestToken(secrets.token_urlsafe(24), callback)
        return PlainTextResponse(
            urlencode(
                {
                    "oauth_token": token,
                    "oauth_token_secret": self.state.request_tokens[token].secret,
                }
            )
        )

    async def confirm(self, request: Request) -> Response:
        if request.method == "GET":
            params = dict(request.query_params)
        else:
            params = {k: v for k, v in (await request.form()).items() if isinstance(v, str)}
        token = params.get("oauth_token", "")
        pending = self.state.request_tokens.get(token)
        if pending is None:
            return error_page("unknown or expired oauth_token")
        decision = params.get("decision") or params.get("sandbox_auto")
        if decision not in ("approve", "deny"):
            return consent_page(
                "Garmin Connect", "sandbox-client", "HEALTH_EXPORT", str(request.url.path),
                {"oauth_token": token},
            )  # fmt: skip
        sep = "&" if urlsplit(pending.callback).query else "?"
        if decision == "deny":
            del self.state.request_tokens[token]
            return RedirectResponse(
                f"{pending.callback}{sep}oauth_token={token}&oauth_verifier=null"
            )
        try:
            pending.athlete_id = max(
                1, int(params.get("athlete_id") or params.get("sandbox_athlete") or "1")
            )
        except ValueError:
            return error_page("athlete_id must be a number")
        pending.verifier = secrets.token_urlsafe(16)
        back = urlencode({"oauth_token": token, "oauth_verifier": pending.verifier})
        return RedirectResponse(f"{pending.callback}{sep}{back}", status_code=302)

    async def access_token(self, request: Request) -> Response:
        def secret_of(token: str | None) -> str | None:
            pending = self.state.request_tokens.get(token or "")
            return pending.secret if pending else None

        oauth = await verify_oauth1(self.state, request, secret_of)
        pending = self.state.request_tokens.get(oauth.token or "") if oauth else None
        verifier = oauth.oauth_params.get("oauth_verifier") if oauth else None
        if oauth is None or pending is None or pending.verifier is None:
            return PlainTextResponse("invalid signature or token", status_code=401)
        if verifier != pending.verifier or pending.athlete_id is None:
            return PlainTextResponse("invalid verifier", status_code=401)
        del self.state.request_tokens[oauth.token]  # single use
        grant = self.state.issue("garmin", pending.athlete_id, "HEALTH_EXPORT", oauth1=True)
        return PlainTextResponse(
            urlencode({"oauth_token": grant.access_token, "oauth_token_secret": grant.token_secret})
        )


def _token_body(grant: Grant, first: bool) -> dict[str, Any]:
    return {
        "access_token": grant.access_token,
        "token_type": "bearer",
        "refresh_token": grant.refresh_token,
        "expires_in": 86_400,
        "scope": grant.scope or "HEALTH_EXPORT",
        "jti": secrets.token_hex(8),
        "refresh_token_expires_in": 7_776_000,
    }


def _grant_error(code: str) -> dict[str, Any]:
    return {"error": code, "error_description": f"{code} (sandbox)"}


def garmin_routes(state: SandboxState) -> list[Route]:
    flavor = Flavor("garmin", error, generic_quota_headers)
    r = GarminRoutes(state)

    def api(path: str, handler: Any, method: str = "GET") -> Route:
        return Route(path, endpoint(state, flavor, handler), methods=[method])

    oauth = OAuth2Flavor(
        label="Garmin Connect",
        flavor=flavor,
        authorize_path="/oauth2Confirm",
        exchange_path="/di-oauth2-service/oauth/token",
        revoke_path=None,
        pkce_required=True,
        basic_auth=False,
        token_body=_token_body,
        grant_error=_grant_error,
    )
    return [
        *oauth2_routes(state, oauth),
        Route("/oauth-service/oauth/request_token", r.request_token, methods=["POST"]),
        Route("/oauthConfirm", r.confirm, methods=["GET", "POST"]),
        Route("/oauth-service/oauth/access_token", r.access_token, methods=["POST"]),
        api(f"{_REST}/user/id", r.user_id),
        api(f"{_REST}/user/registration", r.deregister, "DELETE"),
        api(f"{_REST}/backfill/{{kind}}", r.backfill),
        api("/workoutportal/workout/v2", r.create_workout, "POST"),
        Route("/training-api/workout/v2/{id}", endpoint(state, flavor, r.workout),
              methods=["GET", "DELETE"]),
        api("/training-api/schedule/", r.create_schedule, "POST"),
        api("/training-api/schedule", r.schedules),
        api(f"{_REST}/{{kind}}", r.summaries),
    ]


def push_payload(athlete_id: int, day: date, user_access_token: str) -> dict[str, Any]:
    """A push notification as Garmin would POST it, for testing webhook receivers."""
    body: dict[str, Any] = {}
    act = gen.activity_on(athlete_id, day)
    if act is not None:
        body["activities"] = [{**activity_summary(act), "userAccessToken": user_access_token}]
    body["dailies"] = [{**daily_summary(athlete_id, day), "userAccessToken": user_access_token}]
    return body
