"""Strava as the service sees it: one ``ProviderSpec``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import TYPE_CHECKING

from .._config import Endpoints
from .._policy import DataPolicy
from .._spec import Capabilities, ListedActivities, ProviderSpec
from ._id import ID
from .client import SCOPES, StravaClient
from .ratelimit import rate_limits
from .webhook import WEBHOOK

if TYPE_CHECKING:
    from starlette.routing import BaseRoute

    from ..sandbox._state import SandboxState


def _sandbox(state: SandboxState, history_days: int) -> Sequence[BaseRoute]:
    from .sandbox import strava_routes  # the emulation loads only where it is mounted

    return strava_routes(state, history_days)


SPEC = ProviderSpec(
    id=ID,
    name="Strava",
    auth="oauth2",
    endpoints=Endpoints(
        authorize="https://www.strava.com/oauth/authorize",
        exchange="https://www.strava.com/oauth/token",
        revoke="https://www.strava.com/oauth/deauthorize",
        api="https://www.strava.com/api/v3",
    ),
    sandbox_paths=Endpoints(
        authorize="/oauth/authorize", exchange="/oauth/token",
        revoke="/oauth/deauthorize", api="/api/v3",
    ),
    scopes=SCOPES,
    client=StravaClient,
    sandbox_routes=_sandbox,
    # 15-minute and daily windows, like the real application quota
    sandbox_limits=((100, 900.0), (1000, 86_400.0)),
    capabilities=Capabilities(activity_streams=True, daily_health=False, push_webhooks=False),
    sync=ListedActivities(streams=True),
    rate_limits=rate_limits,
    webhook=WEBHOOK,
    # Strava API Policy, effective 2026-06-01: a 7-day cache (5.5), no combining with
    # other data for analytics (5.4), nothing to an AI application, "ingestion into a
    # context window or working memory" named (5.3). docs/providers.md quotes them.
    policy=DataPolicy(retention=timedelta(days=7), assistants=False, combined=False,
                      terms="https://www.strava.com/legal/api", read_on=date(2026, 12, 7),
                      agreement_setting="strava_ai_agreement"),
)
