"""The provider interface and the small storage Protocols the service implements."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pacekeeper.fitness.models import Activity, Athlete, ProviderId

from ._config import ProviderSettings
from ._tokens import AuthorizationStart, TokenSet

if TYPE_CHECKING:  # numpy: a type only here (the standalone sandbox imports this)
    from pacekeeper.fitness.streams import StreamSet


@runtime_checkable
class ProviderClient(Protocol):
    """What every provider offers the connection and sync layers (PROV-4, PROV-9)."""

    provider: ProviderId
    settings: ProviderSettings

    async def start_authorization(
        self, state: str, *, scopes: Sequence[str] | None = None
    ) -> AuthorizationStart:
        """Authorization URL plus what must be kept beside ``state`` (PKCE verifier,
        OAuth 1.0a request-token secret) until the callback."""
        ...

    async def complete_authorization(
        self, start: AuthorizationStart, callback: Mapping[str, str]
    ) -> TokenSet:
        """Exchange the callback's ``code`` (or ``oauth_verifier``) for tokens."""
        ...

    async def refresh(self, token: TokenSet) -> TokenSet:
        """New tokens from the refresh token; ``ReconnectRequired`` when refused."""
        ...

    async def deauthorize(self, token: TokenSet) -> None:
        """Tell the provider we are done (PROV-10's "provider told to deauthorize")."""
        ...

    async def fetch_athlete(self, token: TokenSet) -> Athlete: ...

    async def fetch_activities(
        self,
        token: TokenSet,
        *,
        after: datetime | None = None,
        before: datetime | None = None,
        limit: int = 200,
    ) -> list[Activity]: ...

    async def fetch_streams(self, token: TokenSet, activity_id: str) -> StreamSet: ...


@runtime_checkable
class WorkoutReceiver(Protocol):
    """A provider that takes structured workouts onto the person's calendar, whence their
    device gets them (``Capabilities.workout_format``; Garmin's Training API)."""

    async def push_workout(self, token: TokenSet, workout: Mapping[str, Any]) -> str:
        """Create the workout (the provider's own body); the provider's id of it."""
        ...

    async def schedule_workout(self, token: TokenSet, workout_id: str, day: date) -> str:
        """Put a pushed workout on ``day``; the provider's id of that schedule."""
        ...


class IdempotencyStore(Protocol):
    """Remembers which webhook deliveries were processed (memory or Redis backend)."""

    async def claim(self, key: str, ttl_s: float) -> bool:
        """True for the first claim of ``key`` within ``ttl_s``; False for a replay."""
        ...


class TokenLookup(Protocol):
    """Maps access tokens a push webhook names the user by to our connections, if any
    (``WebhookHost`` is one, bound to its provider)."""

    async def users_for_tokens(self, user_access_tokens: Collection[str]) -> dict[str, str]:
        """Our user id for each token of a connected connection (others absent)."""
        ...
