"""Every provider the service knows, in one place: one line per provider.

Every list of providers (settings, connections, dashboard, routes, OpenAPI, tools, the
sandbox) is derived from ``PROVIDERS``; adding a provider is its folder plus one line
here (docs/providers.md, "Adding a provider").
"""

from __future__ import annotations

from collections.abc import KeysView, Mapping
from typing import TYPE_CHECKING, Literal

from ._config import Endpoints
from ._spec import ProviderSpec
from .fitbit.spec import SPEC as FITBIT
from .garmin.spec import SPEC as GARMIN
from .strava.spec import SPEC as STRAVA

# A plain dict read at call time everywhere, so a test can register a fake provider
# (tests/pacekeeper/providers/test_registry.py); the service never changes it.
_SPECS: dict[str, ProviderSpec] = {spec.id: spec for spec in (STRAVA, FITBIT, GARMIN)}
PROVIDERS: Mapping[str, ProviderSpec] = _SPECS
# The ids in registry order, as a live view (``in``, iteration, ``len``).
PROVIDER_IDS: KeysView[str] = _SPECS.keys()

# The providers that take structured workouts onto a person's device account.
WORKOUT_PROVIDER_IDS: tuple[str, ...] = tuple(
    p.id for p in PROVIDERS.values() if p.capabilities.workout_format)

if TYPE_CHECKING:  # a type checker cannot see a Literal built at run time
    ProviderName = str
    DeviceProviderName = str
else:  # for tool schemas: the registry's ids as the argument's enum
    ProviderName = Literal[tuple(PROVIDER_IDS)]
    DeviceProviderName = Literal[WORKOUT_PROVIDER_IDS]


def default_endpoints() -> dict[str, Endpoints]:
    return {p.id: p.endpoints for p in PROVIDERS.values()}


__all__ = ["PROVIDERS", "PROVIDER_IDS", "WORKOUT_PROVIDER_IDS", "DeviceProviderName",
           "ProviderName", "default_endpoints"]
