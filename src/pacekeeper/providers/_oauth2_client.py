"""What the OAuth 2.0 provider clients (Strava, Fitbit) share.

Each has its HTTP layer (retries, rate-limit tracking), its `OAuth2Flow` configured
for the provider, JSON GETs against the API with the user's bearer token, and the rule
that a response the mappers cannot read is a `ProviderResponseError`. A large body (an
activity's streams) is decoded and mapped through ``run_cpu`` (``providers._offload``).
A subclass says how its flow is configured (`_flow`) and which field revocation posts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

import httpx

from pacekeeper.fitness.models import ProviderId

from ._config import ProviderSettings
from ._http import ProviderHTTP, RetryPolicy, Sleep
from ._oauth2 import OAuth2Flow
from ._offload import RunCpu, run_here, shaped
from ._ratelimit import RateLimitTracker, RateLimitWindow, parse_rate_limits
from ._tokens import AuthorizationStart, TokenSet

T = TypeVar("T")


class OAuth2ProviderClient:
    provider: ProviderId  # set by each subclass
    revoke_field: ClassVar[str] = "token"  # the form field the revocation endpoint reads

    @staticmethod
    def rate_limits(headers: Mapping[str, str], now: float) -> list[RateLimitWindow]:
        """The provider's quota headers (a subclass names its spec's parser)."""
        return parse_rate_limits(headers, now)

    def __init__(
        self,
        settings: ProviderSettings,
        client: httpx.AsyncClient,
        *,
        policy: RetryPolicy | None = None,
        tracker: RateLimitTracker | None = None,
        sleep: Sleep | None = None,
        run_cpu: RunCpu = run_here,
    ) -> None:
        self.settings = settings
        # Where a large body is decoded and mapped (``providers._offload``, issue 30).
        self.run_cpu = run_cpu
        self.http = ProviderHTTP(
            self.provider, client, policy=policy, tracker=tracker, sleep=sleep,
            rate_limits=self.rate_limits,
        )
        self.oauth = self._flow(settings, self.http)
        self.api = settings.endpoints.api

    def _flow(self, settings: ProviderSettings, http: ProviderHTTP) -> OAuth2Flow:
        raise NotImplementedError

    async def start_authorization(
        self, state: str, *, scopes: Sequence[str] | None = None
    ) -> AuthorizationStart:
        return self.oauth.start(state, scopes)

    async def complete_authorization(
        self, start: AuthorizationStart, callback: Mapping[str, str]
    ) -> TokenSet:
        return await self.oauth.complete(start, callback)

    async def refresh(self, token: TokenSet) -> TokenSet:
        return await self.oauth.refresh(token)

    async def deauthorize(self, token: TokenSet) -> None:
        await self.oauth.revoke(token, field=self.revoke_field)

    async def _get(self, token: TokenSet, path: str, **params: Any) -> Any:
        return await self.http.json(
            "GET", f"{self.api}{path}", bearer=token.access_token, params=params or None
        )

    async def _get_bytes(self, token: TokenSet, path: str, **params: Any) -> bytes:
        """A GET's body undecoded: for a large one, decoded where it is mapped."""
        response = await self.http.request(
            "GET", f"{self.api}{path}", bearer=token.access_token, params=params or None
        )
        return response.content

    def _map(self, mapper: Callable[[], T]) -> T:
        return shaped(self.provider, mapper)


__all__ = ["OAuth2ProviderClient"]
