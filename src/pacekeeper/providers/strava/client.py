"""Strava API v3 client: OAuth 2.0, athlete, activities, streams, stats, zones (PROV-9)."""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from pacekeeper.fitness.models import (
    Activity,
    Athlete,
    AthleteStats,
    AthleteZones,
)

from .._config import ProviderSettings
from .._http import ProviderHTTP, expect_dict, expect_list
from .._oauth2 import OAuth2Flow
from .._oauth2_client import OAuth2ProviderClient
from .._offload import off_loop
from .._tokens import TokenSet
from . import _map as m
from ._id import ID
from .ratelimit import rate_limits

if TYPE_CHECKING:  # numpy: a type only here (the standalone sandbox imports this)
    from pacekeeper.fitness.streams import StreamSet

STREAM_KEYS = (
    "time", "distance", "latlng", "altitude", "velocity_smooth",
    "heartrate", "cadence", "watts",
)  # fmt: skip
SCOPES = ("read", "activity:read_all", "profile:read_all")  # asked for by default
T = TypeVar("T")
_PAGE_SIZE = 100  # Strava's maximum per_page is 200; 100 keeps responses small


def _athlete_id(body: dict[str, Any]) -> str | None:
    athlete = body.get("athlete")
    return str(athlete["id"]) if isinstance(athlete, dict) and "id" in athlete else None


class StravaClient(OAuth2ProviderClient):
    provider = ID
    rate_limits = staticmethod(rate_limits)
    revoke_field = "access_token"

    def _flow(self, settings: ProviderSettings, http: ProviderHTTP) -> OAuth2Flow:
        return OAuth2Flow(
            settings,
            http,
            pkce=False,
            basic_auth=False,
            scope_separator=",",
            default_scopes=SCOPES,
            extra_authorize_params={"approval_prompt": "auto"},
            user_id_of=_athlete_id,
        )

    async def exchange_code(self, code: str) -> TokenSet:
        return await self.oauth.exchange_code(code)

    async def fetch_athlete(self, token: TokenSet) -> Athlete:
        body = expect_dict("strava", await self._get(token, "/athlete"))
        return self._map(partial(m.map_athlete, body))

    async def fetch_activities(
        self,
        token: TokenSet,
        *,
        after: datetime | None = None,
        before: datetime | None = None,
        limit: int = 200,
    ) -> list[Activity]:
        """Newest-first pages of ``/athlete/activities`` until ``limit`` or the end."""
        params: dict[str, Any] = {"per_page": min(_PAGE_SIZE, limit)}
        if after is not None:
            params["after"] = int(after.timestamp())
        if before is not None:
            params["before"] = int(before.timestamp())
        found: list[Activity] = []
        page = 1
        while len(found) < limit:
            rows = expect_list(
                "strava", await self._get(token, "/athlete/activities", page=page, **params)
            )
            found.extend(self._map(partial(m.map_activity, row)) for row in rows)
            if len(rows) < params["per_page"]:
                break
            page += 1
        return found[:limit]

    async def fetch_activity(self, token: TokenSet, activity_id: str) -> Activity:
        body = expect_dict("strava", await self._get(token, f"/activities/{int(activity_id)}"))
        return self._map(partial(m.map_activity, body))

    async def fetch_streams(self, token: TokenSet, activity_id: str) -> StreamSet:
        body = await self._get_bytes(
            token,
            f"/activities/{int(activity_id)}/streams",
            keys=",".join(STREAM_KEYS),
            key_by_type="true",
        )
        # Decoded and put on the grid in the CPU pool: ~0.5 MB of JSON for a 3-hour ride.
        return await off_loop(self.run_cpu, m.streams_from_json, body)

    async def fetch_stats(self, token: TokenSet, athlete_id: str) -> AthleteStats:
        body = expect_dict("strava", await self._get(token, f"/athletes/{int(athlete_id)}/stats"))
        return self._map(partial(m.map_stats, body))

    async def fetch_zones(self, token: TokenSet) -> AthleteZones:
        body = expect_dict("strava", await self._get(token, "/athlete/zones"))
        return self._map(partial(m.map_zones, body))
