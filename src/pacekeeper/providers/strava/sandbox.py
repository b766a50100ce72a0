"""Strava API v3 emulation in Strava's exact response shapes (see the swagger file)."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..sandbox import _generator as gen
from ..sandbox._guard import Flavor, api_getter
from ..sandbox._oauth2_routes import OAuth2Flavor, oauth2_routes
from ..sandbox._state import Grant, SandboxState, Window

STREAM_TYPES = (
    "time", "distance", "latlng", "altitude", "velocity_smooth",
    "heartrate", "cadence", "watts", "grade_smooth", "moving",
)  # fmt: skip



def strava_quota_headers(windows: list[Window], now: float) -> dict[str, str]:
    limits = ",".join(str(w.limit) for w in windows)
    usage = ",".join(str(w.used) for w in windows)
    return {
        "X-RateLimit-Limit": limits,
        "X-RateLimit-Usage": usage,
        "X-ReadRateLimit-Limit": limits,
        "X-ReadRateLimit-Usage": usage,
    }


def fault(status: int, message: str) -> dict[str, Any]:
    """Strava's Fault object: a message plus a list of resource/field/code errors."""
    resource, field, code = {
        401: ("Athlete", "access_token", "invalid"),
        404: ("Activity", "id", "not found"),
        429: ("Application", "rate limit", "exceeded"),
    }.get(status, ("Application", "", "error"))
    if message == "expired_token":
        code = "expired"
    text = {401: "Authorization Error", 404: "Record Not Found", 429: "Rate Limit Exceeded"}
    return {
        "message": text.get(status, message),
        "errors": [{"resource": resource, "field": field, "code": code}],
    }


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def athlete_json(athlete_id: int, detailed: bool) -> dict[str, Any]:
    a = gen.athlete(athlete_id)
    body: dict[str, Any] = {
        "id": a.id,
        "username": f"{a.firstname.lower()}{a.id}",
        "resource_state": 3 if detailed else 2,
        "firstname": a.firstname,
        "lastname": a.lastname,
        "bio": None,
        "city": a.city,
        "state": None,
        "country": None,
        "sex": a.sex,
        "premium": False,
        "summit": False,
        "created_at": _iso(a.created_at),
        "updated_at": _iso(a.created_at),
        "badge_type_id": 0,
        "weight": a.weight_kg,
        "profile_medium": "avatar/athlete/medium.png",
        "profile": "avatar/athlete/large.png",
        "friend": None,
        "follower": None,
    }
    if detailed:
        body.update(
            follower_count=0,
            friend_count=0,
            measurement_preference="meters",
            ftp=a.ftp,
            max_heartrate=a.max_hr,
            clubs=[],
            bikes=[],
            shoes=[],
        )
    return body


def activity_json(act: gen.SandboxActivity, detailed: bool) -> dict[str, Any]:
    s = gen.summary(act.id)
    st = gen.streams(act.id)
    outdoor = not act.trainer
    body: dict[str, Any] = {
        "resource_state": 3 if detailed else 2,
        "athlete": {"id": act.athlete_id, "resource_state": 1},
        "name": act.name,
        "distance": s.distance,
        "moving_time": s.moving_time,
        "elapsed_time": act.duration_s,
        "total_elevation_gain": s.elevation_gain,
        "type": act.sport,
        "sport_type": act.sport,
        "workout_type": None,
        "id": act.id,
        "external_id": f"sandbox-{act.id}.fit",
        "upload_id": act.id,
        "start_date": _iso(act.start),
        "start_date_local": act.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timezone": "(GMT+00:00) UTC",
        "utc_offset": 0.0,
        "start_latlng": st.latlng[0] if outdoor else [],
        "end_latlng": st.latlng[-1] if outdoor else [],
        "location_city": None,
        "location_state": None,
        "location_country": None,
        "achievement_count": 0,
        "kudos_count": 0,
        "comment_count": 0,
        "athlete_count": 1,
        "photo_count": 0,
        "map": {"id": f"a{act.id}", "summary_polyline": None, "resource_state": 2},
        "trainer": act.trainer,
        "commute": False,
        "manual": False,
        "private": False,
        "flagged": False,
        "gear_id": None,
        "from_accepted_tag": False,
        "average_speed": s.average_speed,
        "max_speed": s.max_speed,
        "average_cadence": s.average_cadence,
        "average_watts": s.average_watts,
        "weighted_average_watts": s.weighted_average_watts,
        "kilojoules": s.kilojoules,
        "device_watts": "watts" not in st.absent,
        "has_heartrate": "heartrate" not in st.absent,
        "average_heartrate": s.average_heartrate,
        "max_heartrate": s.max_heartrate,
        "max_watts": s.max_watts,
        "pr_count": 0,
        "total_photo_count": 0,
        "has_kudoed": False,
        "device_name": "Sandbox Head Unit",
    }
    if detailed:
        body.update(
            description=None,
            calories=s.calories,
            segment_efforts=[],
            splits_metric=[],
            laps=[],
            best_efforts=[],
            embed_token=None,
            photos={"primary": None, "count": 0},
        )
    return body


class StravaRoutes:
    def __init__(self, state: SandboxState, history_days: int) -> None:
        self.state = state
        self.history_days = history_days

    def _visible(self, athlete_id: int) -> list[gen.SandboxActivity]:
        now = datetime.fromtimestamp(self.state.clock(), UTC)
        first = now.date() - timedelta(days=self.history_days)
        # A recorded ride is the athlete's own upload: in the account however old it is.
        older = [a for a in gen.recorded_of(athlete_id) if a.start.date() < first]
        acts = older + gen.activities_between(athlete_id, first, now.date())
        return [a for a in acts if a.start + timedelta(seconds=a.duration_s) <= now]

    async def athlete(self, request: Request, grant: Grant) -> Any:
        return athlete_json(grant.athlete_id, detailed=True)

    async def activities(self, request: Request, grant: Grant) -> Any:
        q = request.query_params
        try:
            page = int(q.get("page", "1"))
            per_page = int(q.get("per_page", "30"))
            before = int(q["before"]) if "before" in q else None
            after = int(q["after"]) if "after" in q else None
        except ValueError:
            return JSONResponse(fault(400, "Bad Request"), status_code=400)
        if page < 1 or not 1 <= per_page <= 200:
            return JSONResponse(fault(400, "Bad Request"), status_code=400)
        acts = [
            a
            for a in reversed(self._visible(grant.athlete_id))
            if (before is None or a.start.timestamp() < before)
            and (after is None or a.start.timestamp() > after)
        ]
        chosen = acts[(page - 1) * per_page : page * per_page]
        return [activity_json(a, detailed=False) for a in chosen]

    def _owned(self, request: Request, grant: Grant) -> gen.SandboxActivity | None:
        try:
            act = gen.activity_by_id(int(request.path_params["id"]))
        except ValueError:
            return None
        visible = act is not None and act in self._visible(grant.athlete_id)
        return act if visible else None

    async def activity(self, request: Request, grant: Grant) -> Any:
        act = self._owned(request, grant)
        if act is None:
            return JSONResponse(fault(404, "Record Not Found"), status_code=404)
        return activity_json(act, detailed=True)

    async def streams(self, request: Request, grant: Grant) -> Any:
        act = self._owned(request, grant)
        if act is None:
            return JSONResponse(fault(404, "Record Not Found"), status_code=404)
        keys = [k for k in request.query_params.get("keys", "").split(",") if k]
        # Synthesising 1 Hz samples is CPU work: off the shared event loop.
        st = await asyncio.to_thread(gen.streams, act.id)
        series: dict[str, list[Any]] = {
            "time": st.time,
            "distance": st.distance,
            "altitude": st.altitude,
            "velocity_smooth": st.velocity,
            "heartrate": st.heartrate,
            "cadence": st.cadence,
            "watts": st.watts,
            "grade_smooth": st.grade,
            "moving": [v > 0.5 for v in st.velocity],
        }
        if not act.trainer:
            series["latlng"] = st.latlng
        for field, key in (("distance", "distance"), ("altitude", "altitude"),
                           ("velocity", "velocity_smooth"), ("heartrate", "heartrate"),
                           ("cadence", "cadence"), ("watts", "watts"), ("grade", "grade_smooth"),
                           ("latlng", "latlng")):
            if field in st.absent:  # a recording without that sensor has no such stream
                series.pop(key, None)
        # Strava always returns distance (the series_type) even when not asked for.
        wanted = [k for k in STREAM_TYPES if k in series and (k in keys or k == "distance")]
        n = len(st.time)
        entries = {
            k: {
                "data": series[k],
                "series_type": "distance",
                "original_size": n,
                "resolution": "high",
            }
            for k in wanted
        }
        if request.query_params.get("key_by_type", "true").lower() == "true":
            return entries
        return [{"type": k, **v} for k, v in entries.items()]

    async def stats(self, request: Request, grant: Grant) -> Any:
        if request.path_params["id"] != str(grant.athlete_id):
            return JSONResponse(fault(403, "Forbidden"), status_code=403)
        now = datetime.fromtimestamp(self.state.clock(), UTC)
        acts = self._visible(grant.athlete_id)

        def totals(sport: str, since: date) -> dict[str, Any]:
            chosen = [a for a in acts if a.sport == sport and a.start.date() >= since]
            sums = [gen.summary(a.id) for a in chosen]
            return {
                "count": len(chosen),
                "distance": round(sum(s.distance for s in sums), 1),
                "moving_time": sum(s.moving_time for s in sums),
                "elapsed_time": sum(a.duration_s for a in chosen),
                "elevation_gain": round(sum(s.elevation_gain for s in sums), 1),
                "achievement_count": 0,
            }

        body: dict[str, Any] = {}
        periods = {
            "recent": now.date() - timedelta(days=28),
            "ytd": date(now.year, 1, 1),
            "all": date.min,
        }
        for prefix, since in periods.items():
            for sport, key in (("Ride", "ride"), ("Run", "run"), ("Swim", "swim")):
                body[f"{prefix}_{key}_totals"] = totals(sport, since)
        rides = [gen.summary(a.id) for a in acts if a.sport == "Ride"]
        body["biggest_ride_distance"] = max((s.distance for s in rides), default=0.0)
        body["biggest_climb_elevation_gain"] = max((s.elevation_gain for s in rides), default=0.0)
        return body

    async def zones(self, request: Request, grant: Grant) -> Any:
        a = gen.athlete(grant.athlete_id)
        hr_edges = [0, *(round(a.max_hr * f) for f in (0.6, 0.7, 0.8, 0.9))]
        p_edges = [0, *(round(a.ftp * f) for f in (0.55, 0.75, 0.9, 1.05, 1.2, 1.5))]

        def zones(edges: list[int]) -> list[dict[str, int]]:
            return [{"min": lo, "max": hi} for lo, hi in zip(edges, [*edges[1:], -1], strict=True)]

        return {
            "heart_rate": {"custom_zones": False, "zones": zones(hr_edges)},
            "power": {"zones": zones(p_edges)},
        }


def _token_body(grant: Grant, first: bool) -> dict[str, Any]:
    body: dict[str, Any] = {
        "token_type": "Bearer",
        "expires_at": int(grant.expires_at),
        "expires_in": 21_600,
        "refresh_token": grant.refresh_token,
        "access_token": grant.access_token,
    }
    if first:
        body["athlete"] = athlete_json(grant.athlete_id, detailed=False)
    return body


def _grant_error(code: str) -> dict[str, Any]:
    if code == "invalid_client":
        return {
            "message": "Bad Request",
            "errors": [{"resource": "Application", "field": "client_id", "code": "invalid"}],
        }
    return {
        "message": "Bad Request",
        "errors": [{"resource": "RefreshToken", "field": "refresh_token", "code": "invalid"}],
    }


def strava_routes(state: SandboxState, history_days: int) -> list[Route]:
    flavor = Flavor("strava", fault, strava_quota_headers)
    r = StravaRoutes(state, history_days)
    get = api_getter(state, flavor)

    oauth = OAuth2Flavor(
        label="Strava",
        flavor=flavor,
        authorize_path="/oauth/authorize",
        exchange_path="/oauth/token",
        revoke_path="/oauth/deauthorize",
        pkce_required=False,
        basic_auth=False,
        token_body=_token_body,
        grant_error=_grant_error,
        revoke_echoes_token=True,
    )
    return [
        *oauth2_routes(state, oauth),
        get("/api/v3/athlete", r.athlete),
        get("/api/v3/athlete/activities", r.activities),
        get("/api/v3/athlete/zones", r.zones),
        get("/api/v3/athletes/{id}/stats", r.stats),
        get("/api/v3/activities/{id}", r.activity),
        get("/api/v3/activities/{id}/streams", r.streams),
    ]
