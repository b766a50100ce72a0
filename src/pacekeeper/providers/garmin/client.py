"""Garmin Health API client: OAuth 1.0a and OAuth 2.0 PKCE, pulls and backfill (PROV-9).

Garmin delivers data mainly by push/ping webhooks (see ``webhook``); the pull
endpoints take upload-time windows of at most 24 hours, so ranges are walked day by day.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlencode, urlsplit, urlunsplit

import httpx

from pacekeeper.fitness.models import (
    Activity,
    Athlete,
    DailySummary,
    SleepSession,
)

from .._config import ProviderSettings
from .._errors import (
    ProviderConfigError,
    ProviderRequestError,
    ProviderResponseError,
    ReconnectRequired,
)
from .._http import ProviderHTTP, RetryPolicy, Sleep, expect_dict, expect_list
from .._oauth1 import OAuth1Auth, parse_token_response
from .._oauth2 import OAuth2Flow
from .._offload import RunCpu, off_loop, run_here, shaped
from .._ratelimit import RateLimitTracker
from .._tokens import AuthorizationStart, TokenSet
from . import _map as m
from ._id import ID

if TYPE_CHECKING:  # numpy: a type only here (the standalone sandbox imports this)
    from pacekeeper.fitness.streams import StreamSet

T = TypeVar("T")
_DAY = 86_400
BackfillKind = Literal["activities", "activityDetails", "dailies", "sleeps", "hrv"]
_REST = "/wellness-api/rest"
_WORKOUT_CREATE = "/workoutportal/workout/v2"  # Training API V2 (docs/providers.md)
_SCHEDULE = "/training-api/schedule/"


class GarminClient:
    provider = ID

    def __init__(
        self,
        settings: ProviderSettings,
        client: httpx.AsyncClient,
        *,
        oauth_version: Literal[1, 2] = 2,
        policy: RetryPolicy | None = None,
        tracker: RateLimitTracker | None = None,
        sleep: Sleep | None = None,
        run_cpu: RunCpu = run_here,
    ) -> None:
        self.settings = settings
        self.oauth_version = oauth_version
        # Where activityDetails bodies are decoded and mapped (``providers._offload``).
        self.run_cpu = run_cpu
        self.http = ProviderHTTP(ID, client, policy=policy, tracker=tracker, sleep=sleep)
        self.oauth2 = OAuth2Flow(
            settings,
            self.http,
            pkce=True,
            basic_auth=False,
            scope_separator=" ",
            default_scopes=(),
        )
        self.api = settings.endpoints.api

    # -- authorization -------------------------------------------------------------

    async def start_authorization(
        self, state: str, *, scopes: Sequence[str] | None = None
    ) -> AuthorizationStart:
        if self.oauth_version == 2:
            return self.oauth2.start(state, scopes)
        ep = self.settings.endpoints
        if not (ep.oauth1_request and ep.oauth1_authorize):
            raise ProviderConfigError("garmin", "OAuth 1.0a endpoints are not configured")
        # OAuth 1.0a has no state parameter: it rides in the callback URL's query.
        callback = _with_query(self.settings.redirect_uri, {"state": state})
        auth = OAuth1Auth(self.settings.client_id, self.settings.client_secret, callback=callback)
        response = await self.http.request(
            "POST", ep.oauth1_request, auth=auth, token_endpoint=True
        )
        tokens = parse_token_response(response.text)
        if "oauth_token" not in tokens or "oauth_token_secret" not in tokens:
            raise ProviderResponseError("garmin", "request-token response is incomplete")
        url = _with_query(ep.oauth1_authorize, {"oauth_token": tokens["oauth_token"]})
        return AuthorizationStart(
            url=url,
            state=state,
            request_token=tokens["oauth_token"],
            request_token_secret=tokens["oauth_token_secret"],
        )

    async def complete_authorization(
        self, start: AuthorizationStart, callback: Mapping[str, str]
    ) -> TokenSet:
        if start.request_token is None:
            return await self.oauth2.complete(start, callback)
        ep = self.settings.endpoints
        presented = callback.get("oauth_token", "")
        verifier = callback.get("oauth_verifier")
        if not verifier or not hmac.compare_digest(presented, start.request_token):
            raise ReconnectRequired("garmin", "authorization was denied or does not match")
        if ep.oauth1_access is None:
            raise ProviderConfigError("garmin", "OAuth 1.0a endpoints are not configured")
        auth = OAuth1Auth(
            self.settings.client_id,
            self.settings.client_secret,
            token=start.request_token,
            token_secret=start.request_token_secret,
            verifier=verifier,
        )
        response = await self.http.request("POST", ep.oauth1_access, auth=auth, token_endpoint=True)
        tokens = parse_token_response(response.text)
        if "oauth_token" not in tokens or "oauth_token_secret" not in tokens:
            raise ProviderResponseError("garmin", "access-token response is incomplete")
        return TokenSet(
            access_token=tokens["oauth_token"],
            token_secret=tokens["oauth_token_secret"],
            token_type="OAuth1",  # noqa: S106 - a scheme name
        )

    async def refresh(self, token: TokenSet) -> TokenSet:
        if token.token_secret is not None:
            return token  # OAuth 1.0a access tokens do not expire
        return await self.oauth2.refresh(token)

    async def deauthorize(self, token: TokenSet) -> None:
        await self._call("DELETE", token, f"{_REST}/user/registration")

    # -- data ------------------------------------------------------------------------

    async def _call(self, method: str, token: TokenSet, path: str, *, json: Any = None,
                    **params: Any) -> httpx.Response:
        url = f"{self.api}{path}"
        if token.token_secret is not None:
            auth = OAuth1Auth(
                self.settings.client_id,
                self.settings.client_secret,
                token=token.access_token,
                token_secret=token.token_secret,
            )
            return await self.http.request(method, url, auth=auth, params=params or None,
                                           json=json)
        return await self.http.request(
            method, url, bearer=token.access_token, params=params or None, json=json
        )

    async def _get_json(self, token: TokenSet, path: str, **params: Any) -> Any:
        return _json(await self._call("GET", token, path, **params))

    @staticmethod
    def _map(mapper: Callable[[Any], T], row: Any) -> T:
        return shaped(ID, lambda: mapper(row))

    async def _windows(
        self, token: TokenSet, kind: str, after: datetime | None, before: datetime | None
    ) -> AsyncIterator[httpx.Response]:
        """The answers for ``kind`` over the range, one per upload window of 24 hours."""
        end = int((before or datetime.now(UTC)).timestamp())
        start = int((after or datetime.fromtimestamp(end, UTC) - timedelta(days=7)).timestamp())
        while start < end:
            stop = min(start + _DAY, end)
            yield await self._call(
                "GET", token, f"{_REST}/{kind}",
                uploadStartTimeInSeconds=start, uploadEndTimeInSeconds=stop,
            )  # fmt: skip
            start = stop

    async def _summaries(
        self, token: TokenSet, kind: str, after: datetime | None, before: datetime | None
    ) -> list[Any]:
        rows: list[Any] = []
        async for response in self._windows(token, kind, after, before):
            rows.extend(expect_list("garmin", _json(response)))
        return rows

    async def fetch_athlete(self, token: TokenSet) -> Athlete:
        body = expect_dict("garmin", await self._get_json(token, f"{_REST}/user/id"))
        if not body.get("userId"):
            raise ProviderResponseError("garmin", "user id response lacks userId")
        return Athlete(provider=ID, provider_id=str(body["userId"]))

    async def fetch_activities(
        self,
        token: TokenSet,
        *,
        after: datetime | None = None,
        before: datetime | None = None,
        limit: int = 200,
    ) -> list[Activity]:
        rows = await self._summaries(token, "activities", after, before)
        return [self._map(m.map_activity, r) for r in rows][:limit]

    async def fetch_activity_details(
        self, token: TokenSet, *, after: datetime | None = None, before: datetime | None = None
    ) -> list[tuple[Activity, StreamSet]]:
        found: list[tuple[Activity, StreamSet]] = []
        async for response in self._windows(token, "activityDetails", after, before):
            # A day's details carry every activity's 1 Hz samples (megabytes of JSON):
            # decoded and put on the grid in the CPU pool, a window at a time.
            found += await off_loop(self.run_cpu, m.details_from_json, response.content)
        return found

    async def fetch_streams(self, token: TokenSet, activity_id: str) -> StreamSet:
        raise ProviderRequestError(
            "garmin", "streams come with activityDetails (push, or fetch_activity_details)"
        )

    async def fetch_dailies(
        self, token: TokenSet, *, after: datetime | None = None, before: datetime | None = None
    ) -> list[DailySummary]:
        rows = await self._summaries(token, "dailies", after, before)
        return [self._map(m.map_daily, r) for r in rows]

    async def fetch_sleeps(
        self, token: TokenSet, *, after: datetime | None = None, before: datetime | None = None
    ) -> list[SleepSession]:
        rows = await self._summaries(token, "sleeps", after, before)
        return [self._map(m.map_sleep, r) for r in rows]

    # -- Training API V2: workouts onto the person's Garmin calendar and device ----------

    async def push_workout(self, token: TokenSet, workout: Mapping[str, Any]) -> str:
        """Create ``workout`` (a Training API V2 body: ``workouts.render_garmin_training``)
        in the person's Garmin Connect; Garmin's id of it."""
        response = await self._call("POST", token, _WORKOUT_CREATE, json=dict(workout))
        body = expect_dict("garmin", _json(response))
        if body.get("workoutId") is None:
            raise ProviderResponseError("garmin", "workout response lacks workoutId")
        return str(body["workoutId"])

    async def schedule_workout(self, token: TokenSet, workout_id: str, day: date) -> str:
        """Put a pushed workout on ``day`` of the person's Garmin calendar (the device
        shows it that day after its next sync); Garmin's id of the schedule."""
        response = await self._call("POST", token, _SCHEDULE,
                                    json={"workoutId": int(workout_id), "date": day.isoformat()})
        body = _json(response)
        # Garmin answers the new schedule's id, as a bare number or in an object.
        found = body.get("workoutScheduleId") if isinstance(body, dict) else body
        if not isinstance(found, int | str) or isinstance(found, bool):
            raise ProviderResponseError("garmin", "schedule response lacks its id")
        return str(found)

    async def request_backfill(
        self, token: TokenSet, kind: BackfillKind, start: datetime, end: datetime
    ) -> bool:
        """Ask Garmin to push history again. True if accepted, False if already pending."""
        if end - start > timedelta(days=90):
            raise ProviderRequestError("garmin", "a backfill covers at most 90 days")
        try:
            await self._call(
                "GET",
                token,
                f"{_REST}/backfill/{kind}",
                summaryStartTimeInSeconds=int(start.timestamp()),
                summaryEndTimeInSeconds=int(end.timestamp()),
            )
        except ProviderRequestError as exc:
            if exc.status == 409:  # duplicate request for the same window
                return False
            raise
        return True


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise ProviderResponseError("garmin", "response is not JSON") from exc


def _with_query(url: str, extra: dict[str, str]) -> str:
    parts = urlsplit(url)
    query = "&".join(p for p in (parts.query, urlencode(extra)) if p)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
