"""One HTTP round trip to a provider: timeouts, retries with backoff, quota, error mapping.

Retried: connection failures, timeouts, 5xx (exponential backoff with full jitter) and
429 when its ``Retry-After`` is short. Everything else maps to one ``ProviderError``.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from pacekeeper.metrics import PROVIDER_CALLS, PROVIDER_QUOTA

from ._errors import (
    AccessTokenRejected,
    ProviderConfigError,
    ProviderError,
    ProviderRateLimited,
    ProviderRequestError,
    ProviderResponseError,
    ProviderUnavailable,
    ReconnectRequired,
)
from ._ratelimit import (
    RateLimitParser,
    RateLimitTracker,
    current_share_keys,
    parse_rate_limits,
    parse_retry_after,
)

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0  # a longer Retry-After is raised, not slept through
    timeout: float = 15.0

    def backoff(self, attempt: int) -> float:
        # Full jitter keeps many workers from retrying in lockstep.
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))  # noqa: S311


def _error_code(response: httpx.Response) -> str:
    """Best-effort OAuth/provider error code from a body, for classification only."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if isinstance(body, dict):
        if isinstance(body.get("error"), str):
            return str(body["error"])
        errors = body.get("errors")
        if isinstance(errors, list) and errors and isinstance(errors[0], dict):
            first = errors[0]
            if first.get("resource") == "Application":  # Strava: our client id is refused
                return "invalid_client"
            return str(first.get("errorType") or first.get("code") or "")
    return ""


class ProviderHTTP:
    def __init__(
        self,
        provider: str,
        client: httpx.AsyncClient,
        *,
        policy: RetryPolicy | None = None,
        tracker: RateLimitTracker | None = None,
        sleep: Sleep | None = None,
        clock: Clock = time.time,
        rate_limits: RateLimitParser = parse_rate_limits,
    ) -> None:
        self.provider = provider
        self.client = client
        self.policy = policy or RetryPolicy()
        self.tracker = tracker or RateLimitTracker(parser=rate_limits)
        self._sleep = sleep or asyncio.sleep
        self._clock = clock

    async def request(
        self,
        method: str,
        url: str,
        *,
        bearer: str | None = None,
        token_endpoint: bool = False,
        auth: httpx.Auth | None = None,
        params: Mapping[str, Any] | None = None,
        data: Mapping[str, Any] | None = None,
        json: Any = None,  # a JSON body (Google Health rollups, Garmin workouts)
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response:
        all_headers = {"Accept": "application/json", **(headers or {})}
        if bearer is not None:
            all_headers["Authorization"] = f"Bearer {bearer}"
        last_failure = "no attempt made"
        keys = current_share_keys.get()
        for attempt in range(self.policy.attempts):
            blocked = self.tracker.blocked_for(self._clock())
            if blocked is not None:
                raise ProviderRateLimited(self.provider, blocked)
            share = self.tracker.share_blocked_for(keys, self._clock())
            if share is not None:
                raise ProviderRateLimited(self.provider, share, tenant_share=True)
            try:
                response = await self.client.request(
                    method,
                    url,
                    params=params,
                    data=data,
                    json=json,
                    headers=all_headers,
                    auth=auth if auth is not None else httpx.USE_CLIENT_DEFAULT,
                    timeout=self.policy.timeout,
                )
            except httpx.TimeoutException:
                last_failure = "timed out"
                PROVIDER_CALLS.labels(self.provider, "transport_error").inc()
            except httpx.TransportError:
                last_failure = "connection failed"
                PROVIDER_CALLS.labels(self.provider, "transport_error").inc()
            else:
                self.tracker.observe(response.headers, self._clock())
                self.tracker.count(keys, self._clock())
                self._observed(response.status_code)
                if response.status_code < 400:
                    return response
                wait = self._wait_for(response, attempt, token_endpoint)
                last_failure = f"HTTP {response.status_code}"
                if attempt + 1 < self.policy.attempts:
                    await self._sleep(wait)
                continue
            if attempt + 1 < self.policy.attempts:
                await self._sleep(self.policy.backoff(attempt))
        raise ProviderUnavailable(
            self.provider,
            f"unavailable after {self.policy.attempts} attempts ({last_failure})",
        )

    def _observed(self, status: int) -> None:
        outcome = ("ok" if status < 400 else "rate_limited" if status == 429
                   else "server_error" if status >= 500 else "client_error")
        PROVIDER_CALLS.labels(self.provider, outcome).inc()
        for window in self.tracker.windows:
            PROVIDER_QUOTA.labels(self.provider, window.name).set(window.remaining)

    def _wait_for(self, response: httpx.Response, attempt: int, token_endpoint: bool) -> float:
        """Delay before retrying ``response``, or raise the error it stands for."""
        status = response.status_code
        if status == 429:
            now = self._clock()
            retry_after = parse_retry_after(response.headers.get("retry-after"), now)
            if retry_after is None:
                retry_after = self.tracker.blocked_for(now) or self.policy.max_delay
            if retry_after > self.policy.max_retry_after or attempt + 1 >= self.policy.attempts:
                self.tracker.exhaust("retry-after", now + retry_after)
                raise ProviderRateLimited(self.provider, retry_after)
            return retry_after
        if status >= 500:
            return self.policy.backoff(attempt)
        raise self._client_error(response, token_endpoint)

    def _client_error(self, response: httpx.Response, token_endpoint: bool) -> ProviderError:
        status, code = response.status_code, _error_code(response)
        if token_endpoint and status in (400, 401):
            if code in ("invalid_client", "unauthorized_client"):
                return ProviderConfigError(
                    self.provider, "client credentials refused", status=status
                )
            return ReconnectRequired(self.provider, "grant refused; reconnect", status=status)
        if status == 401:
            return AccessTokenRejected(self.provider, "access token rejected", status=status)
        if status == 403:
            return ProviderRequestError(self.provider, "forbidden (missing scope?)", status=status)
        if status == 404:
            return ProviderRequestError(self.provider, "not found", status=status)
        return ProviderRequestError(
            self.provider, f"request refused (HTTP {status})", status=status
        )

    async def json(self, method: str, url: str, **kwargs: Any) -> Any:
        response = await self.request(method, url, **kwargs)
        try:
            return response.json()
        except ValueError as exc:
            raise ProviderResponseError(self.provider, "response is not JSON") from exc


def expect_dict(provider: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ProviderResponseError(provider, "expected a JSON object")
    return value


def expect_list(provider: str, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ProviderResponseError(provider, "expected a JSON array")
    return value
