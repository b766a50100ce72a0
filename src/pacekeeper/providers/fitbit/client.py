"""Fitbit Web API client: OAuth 2.0 with PKCE, profile, activities, heart rate, sleep, HRV.

Google is moving the Fitbit Web API to the Google Health API; only this module and its
mapper know Fitbit's URLs and shapes, so the move stays behind the provider interface.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from pacekeeper.fitness.models import (
    Activity,
    Athlete,
    DailySummary,
    SleepSession,
)

from .._config import ProviderSettings
from .._errors import ProviderRequestError
from .._http import ProviderHTTP, expect_dict, expect_list
from .._oauth2 import OAuth2Flow
from .._oauth2_client import OAuth2ProviderClient
from .._tokens import TokenSet
from . import _map as m
from ._id import ID
from .ratelimit import rate_limits

if TYPE_CHECKING:  # numpy: a type only here (the standalone sandbox imports this)
    from pacekeeper.fitness.streams import StreamSet

SCOPES = ("activity", "heartrate", "sleep", "profile", "location")  # asked for by default
T = TypeVar("T")
_PAGE = 100  # Fitbit's maximum for activities/list.json


def _user_id(body: dict[str, Any]) -> str | None:
    value = body.get("user_id")
    return str(value) if value else None


class FitbitClient(OAuth2ProviderClient):
    """Fitbit's quota is per user: pass one `tracker` per connected user."""

    provider = ID
    rate_limits = staticmethod(rate_limits)

    def _flow(self, settings: ProviderSettings, http: ProviderHTTP) -> OAuth2Flow:
        return OAuth2Flow(
            settings,
            http,
            pkce=True,
            basic_auth=True,
            scope_separator=" ",
            default_scopes=SCOPES,
            user_id_of=_user_id,
        )

    async def fetch_athlete(self, token: TokenSet) -> Athlete:
        body = expect_dict("fitbit", await self._get(token, "/1/user/-/profile.json"))
        return self._map(lambda: m.map_profile(body))

    async def fetch_activities(
        self,
        token: TokenSet,
        *,
        after: datetime | None = None,
        before: datetime | None = None,
        limit: int = 200,
    ) -> list[Activity]:
        # Fitbit needs exactly one of afterDate (ascending) or beforeDate (descending).
        if after is not None:
            params: dict[str, Any] = {
                "afterDate": after.strftime("%Y-%m-%dT%H:%M:%S"),
                "sort": "asc",
            }
        else:
            edge = before or datetime.now(UTC)
            params = {"beforeDate": edge.strftime("%Y-%m-%dT%H:%M:%S"), "sort": "desc"}
        found: list[Activity] = []
        offset = 0
        while len(found) < limit:
            body = expect_dict(
                "fitbit",
                await self._get(
                    token, "/1/user/-/activities/list.json", offset=offset, limit=_PAGE, **params
                ),
            )
            rows = expect_list("fitbit", body.get("activities"))
            found.extend(self._map(partial(m.map_activity, row)) for row in rows)
            if len(rows) < _PAGE or not (body.get("pagination") or {}).get("next"):
                break
            offset += len(rows)
        if after is not None and before is not None:
            found = [a for a in found if a.start < before]
        return found[:limit]

    async def fetch_streams(self, token: TokenSet, activity_id: str) -> StreamSet:
        raise ProviderRequestError(
            "fitbit", "per-second activity streams are not offered; use fetch_daily(intraday)"
        )

    async def fetch_daily(
        self, token: TokenSet, day: date, *, intraday: bool = False, tz: tzinfo = UTC
    ) -> DailySummary:
        """Steps, calories, resting HR, HRV and optionally 1-second heart rate of one day."""
        iso = day.isoformat()
        summary = expect_dict(
            "fitbit", await self._get(token, f"/1/user/-/activities/date/{iso}.json")
        )
        detail = "/1d/1sec.json" if intraday else "/1d.json"
        heart = expect_dict(
            "fitbit", await self._get(token, f"/1/user/-/activities/heart/date/{iso}{detail}")
        )
        hrv = expect_dict("fitbit", await self._get(token, f"/1/user/-/hrv/date/{iso}.json"))
        entries = hrv.get("hrv") or []
        rmssd = entries[0].get("value", {}).get("dailyRmssd") if entries else None
        return self._map(lambda: m.map_daily(day, summary, heart, rmssd, tz))

    async def fetch_daily_range(self, token: TokenSet, start: date, end: date
                                ) -> list[DailySummary]:
        """Resting HR, steps and HRV of every day of ``start`` .. ``end`` from Fitbit's
        range endpoints: a few requests for months of days (the day-by-day
        ``fetch_daily`` costs three a day against a quota of 150 an hour)."""
        heart: list[Any] = []
        steps: list[Any] = []
        hrv: list[Any] = []
        for first, last in _chunks(start, end, 365):  # heart rate series: a year a call
            body = expect_dict("fitbit", await self._get(
                token, f"/1/user/-/activities/heart/date/{first}/{last}.json"))
            heart += expect_list("fitbit", body.get("activities-heart") or [])
        for first, last in _chunks(start, end, 1095):  # steps series: 1095 days a call
            body = expect_dict("fitbit", await self._get(
                token, f"/1/user/-/activities/steps/date/{first}/{last}.json"))
            steps += expect_list("fitbit", body.get("activities-steps") or [])
        for first, last in _chunks(start, end, 30):  # HRV intervals: 30 days a call
            body = expect_dict("fitbit", await self._get(
                token, f"/1/user/-/hrv/date/{first}/{last}.json"))
            hrv += expect_list("fitbit", body.get("hrv") or [])
        return self._map(lambda: m.map_daily_series(start, end, heart, steps, hrv))

    async def fetch_sleep(
        self, token: TokenSet, start: date, end: date, *, tz: tzinfo = UTC
    ) -> list[SleepSession]:
        """Sleep logs between two dates (Fitbit allows at most 100 days per call)."""
        body = expect_dict(
            "fitbit",
            await self._get(
                token, f"/1.2/user/-/sleep/date/{start.isoformat()}/{end.isoformat()}.json"
            ),
        )
        rows = expect_list("fitbit", body.get("sleep"))
        return [self._map(partial(m.map_sleep, row, tz)) for row in rows]


def _chunks(start: date, end: date, days: int) -> Iterator[tuple[date, date]]:
    """``start`` .. ``end`` in ranges of at most ``days`` days."""
    while start <= end:
        last = min(end, start + timedelta(days=days - 1))
        yield start, last
        start = last + timedelta(days=1)
