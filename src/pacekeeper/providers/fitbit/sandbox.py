"""Fitbit Web API emulation (profile, activity logs, heart rate, sleep, HRV)."""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..sandbox import _generator as gen
from ..sandbox import _wellness as well
from ..sandbox._guard import Flavor, api_getter
from ..sandbox._oauth2_routes import OAuth2Flavor, oauth2_routes
from ..sandbox._state import Grant, SandboxState, Window

_TYPE_IDS = {"Ride": 90001, "Run": 90009}
_NAMES = {"Ride": "Outdoor Bike", "Run": "Run"}
MAX_SLEEP_RANGE_DAYS = 100
MAX_HEART_RANGE_DAYS = 366  # a year: Fitbit's heart rate time series limit
MAX_STEPS_RANGE_DAYS = 1095  # Fitbit's activity time series limit for steps



def fitbit_quota_headers(windows: list[Window], now: float) -> dict[str, str]:
    w = windows[0]
    return {
        "fitbit-rate-limit-limit": str(w.limit),
        "fitbit-rate-limit-remaining": str(max(0, w.limit - w.used)),
        "fitbit-rate-limit-reset": str(max(0, math.ceil(w.resets_at() - now))),
    }


def encoded_id(athlete_id: int) -> str:
    return f"SB{athlete_id:05d}"


def error(status: int, message: str) -> dict[str, Any]:
    kind = {401: "invalid_token", 404: "not_found", 429: "too_many_requests", 400: "validation"}
    error_type = "expired_token" if message == "expired_token" else kind.get(status, "system")
    return {"errors": [{"errorType": error_type, "message": message}], "success": False}


def _bad(message: str) -> JSONResponse:
    return JSONResponse(error(400, message), status_code=400)


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _local(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.000")


def activity_log(act: gen.SandboxActivity) -> dict[str, Any]:
    s = gen.summary(act.id)
    return {
        "logId": act.id,
        "activityName": _NAMES[act.sport],
        "activityTypeId": _TYPE_IDS[act.sport],
        "logType": "tracker",
        "startTime": act.start.strftime("%Y-%m-%dT%H:%M:%S.000+00:00"),
        "originalStartTime": act.start.strftime("%Y-%m-%dT%H:%M:%S.000+00:00"),
        "duration": act.duration_s * 1000,
        "originalDuration": act.duration_s * 1000,
        "activeDuration": s.moving_time * 1000,
        "distance": round(s.distance / 1000, 3),
        "distanceUnit": "Kilometer",
        "speed": round(s.average_speed * 3.6, 3),
        "pace": round(1000 / s.average_speed, 1) if s.average_speed else 0,
        "calories": round(s.calories),
        "averageHeartRate": round(s.average_heartrate),
        "elevationGain": s.elevation_gain,
        "steps": act.duration_s * 170 // 60 if act.sport == "Run" else 0,
        "hasGps": not act.trainer,
        "source": {"name": "Sandbox Tracker", "type": "tracker", "id": "sandbox"},
        "lastModified": (act.start + timedelta(seconds=act.duration_s + 300)).strftime(
            "%Y-%m-%dT%H:%M:%S.000Z"
        ),
    }


class FitbitRoutes:
    def __init__(self, state: SandboxState) -> None:
        self.state = state

    def _today(self) -> date:
        return datetime.fromtimestamp(self.state.clock(), UTC).date()

    async def profile(self, request: Request, grant: Grant) -> Any:
        a = gen.athlete(grant.athlete_id)
        return {
            "user": {
                "encodedId": encoded_id(a.id),
                "firstName": a.firstname,
                "lastName": a.lastname,
                "displayName": f"{a.firstname} {a.lastname[0]}.",
                "fullName": f"{a.firstname} {a.lastname}",
                "gender": "MALE" if a.sex == "M" else "FEMALE",
                "dateOfBirth": "1988-04-12",
                "weight": a.weight_kg,
                "height": 175.0,
                "timezone": "UTC",
                "offsetFromUTCMillis": 0,
                "memberSince": a.created_at.date().isoformat(),
                "avatar": "https://static0.fitbit.com/images/profile/defaultProfile_100.png",
                "country": "",
                "city": a.city,
                "strideLengthRunning": 110.0,
                "strideLengthWalking": 75.0,
                "distanceUnit": "METRIC",
            }
        }

    async def activity_list(self, request: Request, grant: Grant) -> Any:
        q = request.query_params
        after, before = q.get("afterDate"), q.get("beforeDate")
        if (after is None) == (before is None):
            return _bad("Exactly one of afterDate or beforeDate is required.")
        try:
            offset, limit = int(q.get("offset", "0")), int(q.get("limit", "20"))
            edge = datetime.fromisoformat(after or before or "").replace(tzinfo=UTC)
        except ValueError:
            return _bad("Invalid offset, limit or date.")
        if not 0 < limit <= 100 or offset < 0:
            return _bad("limit must be 1..100")
        today = self._today()
        acts = gen.activities_between(grant.athlete_id, today - timedelta(days=365), today)
        now = datetime.fromtimestamp(self.state.clock(), UTC)
        acts = [a for a in acts if a.start + timedelta(seconds=a.duration_s) <= now]
        if after is not None:
            chosen = [a for a in acts if a.start > edge]
        else:
            chosen = [a for a in reversed(acts) if a.start < edge]
        page = chosen[offset : offset + limit]
        more = offset + limit < len(chosen)
        base = str(request.url.replace(query=""))
        nxt = dict(q) | {"offset": str(offset + limit)}
        return {
            "activities": [activity_log(a) for a in page],
            "pagination": {
                "afterDate" if after else "beforeDate": after or before,
                "limit": limit,
                "offset": offset,
                "sort": q.get("sort", "asc" if after else "desc"),
                "next": f"{base}?{urlencode(nxt)}" if more else "",
                "previous": "",
            },
        }

    async def daily(self, request: Request, grant: Grant) -> Any:
        day = _day(request.path_params["date"])
        if day is None:
            return _bad("Invalid date.")
        d = well.daily(grant.athlete_id, day)
        act = gen.activity_on(grant.athlete_id, day)
        return {
            "activities": [activity_log(act)] if act else [],
            "goals": {"steps": 10000, "caloriesOut": 2500, "activeMinutes": 30},
            "summary": {
                "steps": d.steps,
                "caloriesOut": d.calories_out,
                "activityCalories": d.activity_calories,
                "caloriesBMR": d.bmr_calories,
                "restingHeartRate": d.resting_hr,
                "floors": d.floors,
                "lightlyActiveMinutes": d.lightly_min,
                "fairlyActiveMinutes": d.fairly_min,
                "veryActiveMinutes": d.very_min,
                "sedentaryMinutes": d.sedentary_min,
                "distances": [{"activity": "total", "distance": d.distance_km}],
            },
        }

    async def heart(self, request: Request, grant: Grant) -> Any:
        day = _day(request.path_params["date"])
        detail = request.path_params.get("detail")
        if day is None or detail not in (None, "1sec", "1min"):
            return _bad("Invalid date or detail level.")
        d = well.daily(grant.athlete_id, day)
        max_hr = gen.athlete(grant.athlete_id).max_hr
        edges = [30, round(max_hr * 0.5), round(max_hr * 0.7), round(max_hr * 0.85), 220]
        names = ("Out of Range", "Fat Burn", "Cardio", "Peak")
        body: dict[str, Any] = {
            "activities-heart": [
                {
                    "dateTime": day.isoformat(),
                    "value": {
                        "customHeartRateZones": [],
                        "heartRateZones": [
                            {"name": n, "min": edges[i], "max": edges[i + 1]}
                            for i, n in enumerate(names)
                        ],
                        "restingHeartRate": d.resting_hr,
                    },
                }
            ]
        }
        if detail is not None:
            step = 1 if detail == "1sec" else 60
            samples = well.intraday_hr(grant.athlete_id, day, step_s=10 if step == 1 else 60)
            if step == 60:
                samples = [s for s in samples if s[0] % 60 == 0]
            body["activities-heart-intraday"] = {
                "dataset": [
                    {"time": f"{t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d}", "value": v}
                    for t, v in samples
                ],
                "datasetInterval": step,
                "datasetType": "second" if step == 1 else "minute",
            }
        return body

    def _span(self, request: Request, max_days: int) -> list[date] | None:
        start = _day(request.path_params["start"])
        end = _day(request.path_params["end"])
        if start is None or end is None or end < start or (end - start).days >= max_days:
            return None
        return [start + timedelta(days=i) for i in range((end - start).days + 1)]

    async def heart_series(self, request: Request, grant: Grant) -> Any:
        """Heart rate time series over a date range (at most a year), one entry a day."""
        days = self._span(request, MAX_HEART_RANGE_DAYS)
        if days is None:
            return _bad("Invalid date range (at most 1 year).")
        return {"activities-heart": [
            {"dateTime": d.isoformat(), "value": {
                "customHeartRateZones": [], "heartRateZones": [],
                "restingHeartRate": well.daily(grant.athlete_id, d).resting_hr}}
            for d in days]}

    async def steps_series(self, request: Request, grant: Grant) -> Any:
        """The steps activity time series (values are strings, as Fitbit sends them)."""
        days = self._span(request, MAX_STEPS_RANGE_DAYS)
        if days is None:
            return _bad("Invalid date range (at most 1095 days).")
        return {"activities-steps": [
            {"dateTime": d.isoformat(), "value": str(well.daily(grant.athlete_id, d).steps)}
            for d in days]}

    def _range(self, request: Request) -> tuple[date, date] | None:
        start = _day(request.path_params["start"])
        end = _day(request.path_params.get("end", request.path_params["start"]))
        if start is None or end is None or end < start:
            return None
        if (end - start).days >= MAX_SLEEP_RANGE_DAYS:
            return None
        return start, end

    async def hrv(self, request: Request, grant: Grant) -> Any:
        span = self._range(request)
        if span is None:
            return _bad("Invalid date range.")
        days = [span[0] + timedelta(days=i) for i in range((span[1] - span[0]).days + 1)]
        return {
            "hrv": [
                {
                    "dateTime": d.isoformat(),
                    "value": {
                        "dailyRmssd": well.daily(grant.athlete_id, d).rmssd,
                        "deepRmssd": round(well.daily(grant.athlete_id, d).rmssd * 1.1, 1),
                    },
                }
                for d in days
            ]
        }

    async def sleep(self, request: Request, grant: Grant) -> Any:
        span = self._range(request)
        if span is None:
            return _bad("Invalid date range (at most 100 days).")
        days = [span[0] + timedelta(days=i) for i in range((span[1] - span[0]).days + 1)]
        logs = []
        for d in reversed(days):
            s = well.sleep(grant.athlete_id, d)
            logs.append(
                {
                    "dateOfSleep": d.isoformat(),
                    "duration": s.duration_s * 1000,
                    "efficiency": s.efficiency,
                    "startTime": _local(s.start),
                    "endTime": _local(s.end),
                    "infoCode": 0,
                    "isMainSleep": True,
                    "logId": s.log_id,
                    "logType": "auto_detected",
                    "minutesAfterWakeup": 0,
                    "minutesAsleep": s.asleep_min,
                    "minutesAwake": s.wake_min,
                    "minutesToFallAsleep": 0,
                    "timeInBed": s.duration_s // 60,
                    "type": "stages",
                    "levels": {
                        "summary": {
                            "deep": {"count": 4, "minutes": s.deep_min, "thirtyDayAvgMinutes": 0},
                            "light": {
                                "count": 20,
                                "minutes": s.light_min,
                                "thirtyDayAvgMinutes": 0,
                            },
                            "rem": {"count": 6, "minutes": s.rem_min, "thirtyDayAvgMinutes": 0},
                            "wake": {"count": 15, "minutes": s.wake_min, "thirtyDayAvgMinutes": 0},
                        },
                        "data": [],
                        "shortData": [],
                    },
                }
            )
        return {
            "sleep": logs,
            "summary": {
                "totalMinutesAsleep": sum(x["minutesAsleep"] for x in logs),
                "totalSleepRecords": len(logs),
                "totalTimeInBed": sum(x["timeInBed"] for x in logs),
            },
        }


def _token_body(grant: Grant, first: bool) -> dict[str, Any]:
    return {
        "access_token": grant.access_token,
        "expires_in": 28_800,
        "refresh_token": grant.refresh_token,
        "scope": grant.scope,
        "token_type": "Bearer",
        "user_id": encoded_id(grant.athlete_id),
    }


def _grant_error(code: str) -> dict[str, Any]:
    return {"errors": [{"errorType": code, "message": f"{code} (sandbox)"}], "success": False}


def fitbit_routes(state: SandboxState) -> list[Route]:
    flavor = Flavor("fitbit", error, fitbit_quota_headers)
    r = FitbitRoutes(state)
    get = api_getter(state, flavor)

    oauth = OAuth2Flavor(
        label="Fitbit",
        flavor=flavor,
        authorize_path="/oauth2/authorize",
        exchange_path="/oauth2/token",
        revoke_path="/oauth2/revoke",
        pkce_required=True,
        basic_auth=True,
        token_body=_token_body,
        grant_error=_grant_error,
    )
    return [
        *oauth2_routes(state, oauth),
        get("/1/user/-/profile.json", r.profile),
        get("/1/user/-/activities/list.json", r.activity_list),
        get("/1/user/-/activities/date/{date}.json", r.daily),
        get("/1/user/-/activities/heart/date/{date}/1d.json", r.heart),
        get("/1/user/-/activities/heart/date/{date}/1d/{detail}.json", r.heart),
        get("/1/user/-/activities/heart/date/{start}/{end}.json", r.heart_series),
        get("/1/user/-/activities/steps/date/{start}/{end}.json", r.steps_series),
        get("/1/user/-/hrv/date/{start}.json", r.hrv),
        get("/1/user/-/hrv/date/{start}/{end}.json", r.hrv),
        get("/1.2/user/-/sleep/date/{start}.json", r.sleep),
        get("/1.2/user/-/sleep/date/{start}/{end}.json", r.sleep),
    ]
