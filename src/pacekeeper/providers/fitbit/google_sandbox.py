"""Google Health API (v4) emulation: Google OAuth 2.0 and the data points the sync reads.

Served beside the retired Fitbit Web API's emulation, under ``/google`` of the
provider's mount: ``/google/o/oauth2/v2/auth`` (accounts.google.com), ``/google/token``
and ``/google/revoke`` (oauth2.googleapis.com), ``/google/health/v4/...``
(health.googleapis.com). Shapes as the public reference documents them
(docs/providers.md lists the pages): the ``dataPoints`` list with an AIP-160 filter and
``nextPageToken``, ``dailyRollUp`` for steps, proto3 JSON (int64 as strings, durations
as ``"<n>s"``), Google's error body, a refresh token only for ``access_type=offline``,
none in a refresh answer, and the documented 300 requests a minute per user with no
quota headers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..sandbox import _generator as gen
from ..sandbox import _wellness as well
from ..sandbox._guard import Flavor, api_getter, endpoint
from ..sandbox._oauth2_routes import OAuth2Flavor, oauth2_routes
from ..sandbox._state import Grant, SandboxState, Window
from .google import SCOPES

ROOT = "/google"
API = f"{ROOT}/health/v4/users/me"
MAX_SESSION_PAGE = 25  # exercise and sleep
MAX_PAGE = 10_000
DEFAULT_PAGE = 1440
MAX_ROLLUP_DAYS = 90
_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
           404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL",
           502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}  # fmt: skip
_TERM = re.compile(r'^\s*([a-z_.]+)\s*(>=|<=|<|>)\s*"([^"]+)"\s*$')
_EXERCISE = {"Run": ("RUNNING", "Run"), "Ride": ("BIKING", "Outdoor Bike")}


def error(status: int, message: str) -> dict[str, Any]:
    return {"error": {"code": status, "message": message,
                      "status": _STATUS.get(status, "UNKNOWN")}}  # fmt: skip


def no_quota_headers(windows: list[Window], now: float) -> dict[str, str]:
    return {}  # Google announces its quota nowhere in a response


def health_user_id(athlete_id: int) -> str:
    return f"GH-{athlete_id:08d}"


def _bad(message: str) -> JSONResponse:
    return JSONResponse(error(400, message), status_code=400)


def _rfc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _date(day: date) -> dict[str, int]:
    return {"year": day.year, "month": day.month, "day": day.day}


def _interval(start: datetime, end: datetime) -> dict[str, Any]:
    # The sandbox's athletes live on UTC: an offset of "0s" at both ends.
    return {"startTime": _rfc(start), "startUtcOffset": "0s",
            "endTime": _rfc(end), "endUtcOffset": "0s"}  # fmt: skip


def _filter(text: str | None, allowed: set[str]) -> dict[str, tuple[str, str]] | str:
    """``field op "literal" AND ...`` -> {field+op: (op, literal)}, or why it is refused."""
    terms: dict[str, tuple[str, str]] = {}
    for part in re.split(r"\s+AND\s+", text or "") if text else []:
        found = _TERM.match(part)
        if found is None or found.group(1) not in allowed:
            return f"unsupported filter term: {part.strip()!r}"
        terms[found.group(1) + found.group(2)] = (found.group(2), found.group(3))
    return terms


def _instant(text: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


def _page(request: Request, rows: list[Any], max_size: int,
          shape: Callable[[Any], Any] = lambda row: row) -> dict[str, Any] | JSONResponse:
    """One page of ``rows``, each shaped only once it is on the page (an exercise's
    summary is the costly part)."""
    q = request.query_params
    try:
        size = int(q.get("pageSize", str(min(DEFAULT_PAGE, max_size))))
        offset = int(q.get("pageToken") or "0")
    except ValueError:
        return _bad("Invalid pageSize or pageToken.")
    if size < 1 or offset < 0:
        return _bad("Invalid pageSize or pageToken.")
    size = min(size, max_size)  # larger sizes are truncated, as documented
    body: dict[str, Any] = {"dataPoints": [shape(r) for r in rows[offset : offset + size]]}
    if offset + size < len(rows):
        body["nextPageToken"] = str(offset + size)
    return body


class GoogleHealthRoutes:
    def __init__(self, state: SandboxState) -> None:
        self.state = state

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.state.clock(), UTC)

    def _span(self, request: Request, field: str
              ) -> tuple[datetime | None, datetime | None] | JSONResponse:
        terms = _filter(request.query_params.get("filter"), {field})
        if isinstance(terms, str):
            return _bad(terms)
        lo = terms.get(field + ">=")
        hi = terms.get(field + "<")
        lo_t = _instant(lo[1]) if lo else None
        hi_t = _instant(hi[1]) if hi else None
        if (lo and lo_t is None) or (hi and hi_t is None):
            return _bad("Timestamp literal expected in RFC-3339 format.")
        return lo_t, hi_t

    async def identity(self, request: Request, grant: Grant) -> Any:
        return {"name": "users/me/identity", "legacyUserId": f"SB{grant.athlete_id:05d}",
                "healthUserId": health_user_id(grant.athlete_id)}  # fmt: skip

    async def exercise(self, request: Request, grant: Grant) -> Any:
        span = self._span(request, "exercise.interval.start_time")
        if isinstance(span, JSONResponse):
            return span
        now = self._now()
        lo = span[0] or now - timedelta(days=365)
        hi = span[1] or now
        acts = gen.activities_between(grant.athlete_id, lo.date(), hi.date())
        done = [a for a in acts if lo <= a.start < hi
                and a.start + timedelta(seconds=a.duration_s) <= now]
        uid = health_user_id(grant.athlete_id)
        newest_first = sorted(done, key=lambda a: a.start, reverse=True)
        return _page(request, newest_first, MAX_SESSION_PAGE,
                     lambda a: self._exercise(uid, a))

    @staticmethod
    def _exercise(uid: str, act: gen.SandboxActivity) -> dict[str, Any]:
        s = gen.summary(act.id)
        kind, label = _EXERCISE[act.sport]
        end = act.start + timedelta(seconds=act.duration_s)
        return {
            "name": f"users/{uid}/dataTypes/exercise/dataPoints/{act.id}",
            "dataSource": {"recordingMethod": "ACTIVELY_RECORDED",
                           "device": {"displayName": "Sandbox Tracker"}},
            "exercise": {
                "interval": _interval(act.start, end),
                "exerciseType": kind,
                "displayName": label,
                "activeDuration": f"{s.moving_time}s",
                "metricsSummary": {
                    "caloriesKcal": round(s.calories, 1),
                    "distanceMillimeters": round(s.distance * 1000),
                    "steps": str(act.duration_s * 170 // 60 if act.sport == "Run" else 0),
                    "averageHeartRateBeatsPerMinute": round(s.average_heartrate),
                },
                "createTime": _rfc(end + timedelta(minutes=5)),
                "updateTime": _rfc(end + timedelta(minutes=5)),
            },
        }

    async def sleep(self, request: Request, grant: Grant) -> Any:
        span = self._span(request, "sleep.interval.start_time")
        if isinstance(span, JSONResponse):
            return span
        now = self._now()
        lo, hi = span[0] or now - timedelta(days=30), span[1] or now
        rows = []
        day = lo.date()
        while day <= hi.date() + timedelta(days=1):
            s = well.sleep(grant.athlete_id, day)
            if lo <= s.start < hi and s.end <= now:
                rows.append(self._sleep(health_user_id(grant.athlete_id), s))
            day += timedelta(days=1)
        return _page(request, rows, MAX_SESSION_PAGE)

    @staticmethod
    def _sleep(uid: str, s: well.Sleep) -> dict[str, Any]:
        stages = [("DEEP", s.deep_min, 4), ("LIGHT", s.light_min, 20), ("REM", s.rem_min, 6),
                  ("AWAKE", s.wake_min, 15)]  # fmt: skip
        return {
            "name": f"users/{uid}/dataTypes/sleep/dataPoints/{s.log_id}",
            "sleep": {
                "interval": _interval(s.start, s.end),
                "type": "STAGES",
                "summary": {
                    "minutesInSleepPeriod": str(s.duration_s // 60),
                    "minutesAsleep": str(s.asleep_min),
                    "minutesAwake": str(s.wake_min),
                    "stagesSummary": [{"type": t, "minutes": str(m), "count": str(c)}
                                      for t, m, c in stages],
                },
            },
        }

    def _days(self, request: Request, field: str) -> list[date] | JSONResponse:
        terms = _filter(request.query_params.get("filter"), {field})
        if isinstance(terms, str):
            return _bad(terms)
        try:
            lo = date.fromisoformat(terms[field + ">="][1])
            hi = date.fromisoformat(terms[field + "<="][1])
        except (KeyError, ValueError):
            return _bad(f"A date range on {field} is required.")
        hi = min(hi, self._now().date())
        return [lo + timedelta(days=i) for i in range((hi - lo).days + 1)]

    async def resting(self, request: Request, grant: Grant) -> Any:
        days = self._days(request, "daily_resting_heart_rate.date")
        if isinstance(days, JSONResponse):
            return days
        rows = [{"dailyRestingHeartRate": {
            "date": _date(d), "beatsPerMinute": str(well.daily(grant.athlete_id, d).resting_hr)}}
            for d in days]
        return _page(request, rows, MAX_PAGE)

    async def hrv(self, request: Request, grant: Grant) -> Any:
        days = self._days(request, "daily_heart_rate_variability.date")
        if isinstance(days, JSONResponse):
            return days
        rows = [{"dailyHeartRateVariability": {
            "date": _date(d),
            "averageHeartRateVariabilityMilliseconds": well.daily(grant.athlete_id, d).rmssd}}
            for d in days]
        return _page(request, rows, MAX_PAGE)

    async def weight(self, request: Request, grant: Grant) -> Any:
        span = self._span(request, "weight.sample_time.physical_time")
        if isinstance(span, JSONResponse):
            return span
        now = self._now()
        kg = gen.athlete(grant.athlete_id).weight_kg
        rows = []
        for week in range(52):  # a weekly weigh-in at 07:00 UTC, drifting a little
            at = datetime.combine(now.date() - timedelta(days=7 * week),
                                  datetime.min.time(), UTC) + timedelta(hours=7)
            if at <= now and (span[0] is None or at >= span[0]):
                grams = round((kg + 0.1 * (week % 3)) * 1000)
                rows.append({"weight": {"sampleTime": {"physicalTime": _rfc(at),
                                                       "utcOffset": "0s"},
                                        "weightGrams": grams}})
        return _page(request, rows, MAX_PAGE)

    async def steps_rollup(self, request: Request, grant: Grant) -> Any:
        try:
            body = await request.json()
            rng = body["range"]
            lo = date(**rng["start"]["date"])
            hi = date(**rng["end"]["date"])  # closed-open: the end day is not included
            window = int(body.get("windowSizeDays", 1))
        except (ValueError, KeyError, TypeError):
            return _bad("range.start and range.end (CivilDateTime) are required.")
        if window != 1 or hi <= lo or (hi - lo).days > MAX_ROLLUP_DAYS:
            return _bad(f"The maximum range is {MAX_ROLLUP_DAYS} days.")
        days = [lo + timedelta(days=i) for i in range((hi - lo).days)]
        return {"rollupDataPoints": [{
            "civilStartTime": {"date": _date(d)},
            "civilEndTime": {"date": _date(d + timedelta(days=1))},
            "steps": {"countSum": str(well.daily(grant.athlete_id, d).steps)}}
            for d in days if d <= self._now().date()]}


def _token_body(grant: Grant, first: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"access_token": grant.access_token, "expires_in": 3599,
                            "scope": grant.scope, "token_type": "Bearer"}  # fmt: skip
    if first and grant.refresh_token:  # never in a refresh answer
        body["refresh_token"] = grant.refresh_token
    return body


def _grant_error(code: str) -> dict[str, Any]:
    return {"error": code, "error_description": f"{code} (sandbox)"}


def google_health_routes(state: SandboxState) -> list[Route]:
    flavor = Flavor("fitbit", error, no_quota_headers)
    r = GoogleHealthRoutes(state)
    get = api_getter(state, flavor)
    oauth = OAuth2Flavor(
        label="Google (Fitbit data)",
        flavor=flavor,
        authorize_path=f"{ROOT}/o/oauth2/v2/auth",
        exchange_path=f"{ROOT}/token",
        revoke_path=f"{ROOT}/revoke",
        pkce_required=True,
        basic_auth=False,
        token_body=_token_body,
        grant_error=_grant_error,
        refresh_needs_offline=True,
        rotates_refresh=False,
    )
    points = f"{API}/dataTypes/{{kind}}/dataPoints"
    return [
        *oauth2_routes(state, oauth),
        get(f"{API}/identity", r.identity),
        get(points.format(kind="exercise"), r.exercise),
        get(points.format(kind="sleep"), r.sleep),
        get(points.format(kind="daily-resting-heart-rate"), r.resting),
        get(points.format(kind="daily-heart-rate-variability"), r.hrv),
        get(points.format(kind="weight"), r.weight),
        Route(points.format(kind="steps") + ":dailyRollUp",
              endpoint(state, flavor, r.steps_rollup), methods=["POST"]),
    ]


__all__ = ["SCOPES", "google_health_routes", "health_user_id"]
