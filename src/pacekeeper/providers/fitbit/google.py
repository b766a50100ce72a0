"""Fitbit data through the Google Health API (v4), the Fitbit Web API's successor.

Google OAuth 2.0: authorization code with PKCE (S256), ``access_type=offline`` (without
it Google issues no refresh token and a sync could not outlive the first hour) and
``prompt=consent`` (a returning user is asked again, so a refresh token comes back on a
reconnect too). The client authenticates in the token request's body. A refresh answer
carries no ``refresh_token``: the stored one stays valid and is kept (``OAuth2Flow``).
Data: ``GET /v4/users/me/dataTypes/{type}/dataPoints`` with an AIP-160 ``filter`` and
``nextPageToken`` paging, ``POST ...:dailyRollUp`` for daily step totals. Google
publishes no quota headers (300 requests a minute per user, docs/providers.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any

from pacekeeper.fitness.models import Activity, Athlete, DailySummary, SleepSession

from .._config import ProviderSettings
from .._errors import ProviderRequestError
from .._http import ProviderHTTP, expect_dict, expect_list
from .._oauth2 import OAuth2Flow
from .._oauth2_client import OAuth2ProviderClient
from .._ratelimit import RateLimitWindow
from .._tokens import AuthorizationStart, TokenSet
from . import _google_map as m
from ._id import ID

if TYPE_CHECKING:
    from collections.abc import Mapping

    from pacekeeper.fitness.streams import StreamSet

SCOPE_PREFIX = "https://www.googleapis.com/auth/googlehealth."
# Read-only, and only what the sync reads (Google asks apps not to request more).
SCOPES = tuple(SCOPE_PREFIX + s for s in (
    "activity_and_fitness.readonly", "health_metrics_and_measurements.readonly",
    "sleep.readonly", "profile.readonly"))  # fmt: skip
_EXERCISE_PAGE = 25  # the maximum page size for exercise and sleep
_PAGE = 1000
_ROLLUP_DAYS = 90  # dailyRollUp's longest range for steps
_BASE = "/v4/users/me"


def rate_limits(headers: Mapping[str, str], now: float) -> list[RateLimitWindow]:
    """Google announces no quota in headers: the tracker learns of a spent quota from a
    429 (``Retry-After`` when sent), and the sandbox enforces the documented 300 a minute."""
    return []


def _rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _civil(day: date) -> dict[str, Any]:
    return {"date": {"year": day.year, "month": day.month, "day": day.day},
            "time": {"hours": 0, "minutes": 0, "seconds": 0}}  # fmt: skip


def has_google_scopes(scopes: str | None) -> bool:
    """A grant made through Google OAuth names Google Health scopes; a Fitbit Web API
    grant names Fitbit's bare ones (``activity heartrate ...``)."""
    return bool(scopes) and SCOPE_PREFIX in (scopes or "")


class GoogleHealthClient(OAuth2ProviderClient):
    """Google's quota is per user and per project; no headers announce it."""

    provider = ID
    rate_limits = staticmethod(rate_limits)

    def _flow(self, settings: ProviderSettings, http: ProviderHTTP) -> OAuth2Flow:
        return OAuth2Flow(
            settings,
            http,
            pkce=True,
            basic_auth=False,
            scope_separator=" ",
            default_scopes=SCOPES,
            extra_authorize_params={"access_type": "offline", "prompt": "consent"},
        )

    async def complete_authorization(
        self, start: AuthorizationStart, callback: Mapping[str, str]
    ) -> TokenSet:
        tokens = await self.oauth.complete(start, callback)
        # The token answer names no user: the identity endpoint gives the Google Health
        # user id. A grant always records its scopes (they tell it from a Fitbit one).
        identity = expect_dict(ID, await self._get(tokens, f"{_BASE}/identity"))
        user_id = self._map(lambda: str(identity["healthUserId"]))
        scope = tokens.scope or callback.get("scope") or " ".join(SCOPES)
        return replace(tokens, provider_user_id=user_id, scope=scope)

    async def refresh(self, token: TokenSet) -> TokenSet:
        fresh = await self.oauth.refresh(token)
        return replace(fresh, scope=fresh.scope or token.scope)

    async def _points(self, token: TokenSet, data_type: str, flt: str | None,
                      page_size: int, limit: int | None = None) -> list[Any]:
        found: list[Any] = []
        page: str | None = None
        while True:
            params: dict[str, Any] = {"pageSize": page_size}
            if flt:
                params["filter"] = flt
            if page:
                params["pageToken"] = page
            body = expect_dict(ID, await self._get(
                token, f"{_BASE}/dataTypes/{data_type}/dataPoints", **params))
            found += expect_list(ID, body.get("dataPoints") or [])
            page = body.get("nextPageToken") or None
            if page is None or (limit is not None and len(found) >= limit):
                return found

    async def _rollup(self, token: TokenSet, data_type: str, first: date, last: date
                      ) -> list[Any]:
        found: list[Any] = []
        page: str | None = None
        while True:
            body: dict[str, Any] = {
                "range": {"start": _civil(first), "end": _civil(last + timedelta(days=1))},
                "windowSizeDays": 1,
            }
            if page:
                body["pageToken"] = page
            answer = expect_dict(ID, await self.http.json(
                "POST", f"{self.api}{_BASE}/dataTypes/{data_type}/dataPoints:dailyRollUp",
                bearer=token.access_token, json=body))
            found += expect_list(ID, answer.get("rollupDataPoints") or [])
            page = answer.get("nextPageToken") or None
            if page is None:
                return found

    async def fetch_athlete(self, token: TokenSet) -> Athlete:
        identity = expect_dict(ID, await self._get(token, f"{_BASE}/identity"))
        since = datetime.now(UTC) - timedelta(days=365)
        weights = await self._points(
            token, "weight", f'weight.sample_time.physical_time >= "{_rfc3339(since)}"', _PAGE)
        return self._map(lambda: m.map_identity(identity, m.latest_weight_kg(weights)))

    async def fetch_activities(
        self,
        token: TokenSet,
        *,
        after: datetime | None = None,
        before: datetime | None = None,
        limit: int = 200,
    ) -> list[Activity]:
        terms = []
        if after is not None:
            terms.append(f'exercise.interval.start_time >= "{_rfc3339(after)}"')
        if before is not None:
            terms.append(f'exercise.interval.start_time < "{_rfc3339(before)}"')
        # With no lower edge, the newest ``limit`` are wanted: stop paging once there.
        points = await self._points(token, "exercise", " AND ".join(terms) or None,
                                    _EXERCISE_PAGE, None if after is not None else limit)
        found = [self._map(partial(m.map_exercise, p)) for p in points]
        if after is not None:
            found = sorted((a for a in found if a.start > after), key=lambda a: a.start)
        else:
            found.sort(key=lambda a: a.start, reverse=True)
        return found[:limit]

    async def fetch_streams(self, token: TokenSet, activity_id: str) -> StreamSet:
        raise ProviderRequestError(ID, "per-second activity streams are not offered")

    async def fetch_daily_range(self, token: TokenSet, start: date, end: date
                                ) -> list[DailySummary]:
        """Steps (daily rollups, 90 days a call), resting HR and HRV (one point a day)
        of every day of ``start`` .. ``end``."""
        steps: list[Any] = []
        for first, last in _chunks(start, end, _ROLLUP_DAYS):
            steps += await self._rollup(token, "steps", first, last)
        span = f'>= "{start.isoformat()}" AND {{f}}.date <= "{end.isoformat()}"'
        resting = await self._points(
            token, "daily-resting-heart-rate",
            "daily_resting_heart_rate.date " + span.format(f="daily_resting_heart_rate"), _PAGE)
        hrv = await self._points(
            token, "daily-heart-rate-variability",
            "daily_heart_rate_variability.date "
            + span.format(f="daily_heart_rate_variability"), _PAGE)
        return self._map(lambda: m.map_days(start, end, steps, resting, hrv))

    async def fetch_sleep(self, token: TokenSet, start: date, end: date) -> list[SleepSession]:
        """Sleeps that end on ``start`` .. ``end`` (a night is dated by its wake-up day):
        asked by start time from the evening before ``start``."""
        lo = datetime.combine(start - timedelta(days=1), datetime.min.time(), UTC)
        hi = datetime.combine(end + timedelta(days=1), datetime.min.time(), UTC)
        flt = (f'sleep.interval.start_time >= "{_rfc3339(lo)}" AND '
               f'sleep.interval.start_time < "{_rfc3339(hi)}"')
        points = await self._points(token, "sleep", flt, _EXERCISE_PAGE)
        sleeps = [self._map(partial(m.map_sleep, p)) for p in points]
        return sorted((s for s in sleeps if start <= s.date <= end),
                      key=lambda s: (s.date, s.provider_id))


def _chunks(start: date, end: date, days: int) -> Iterator[tuple[date, date]]:
    while start <= end:
        last = min(end, start + timedelta(days=days - 1))
        yield start, last
        start = last + timedelta(days=1)
