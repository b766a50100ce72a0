"""An emulator of the registered providers' APIs (Strava, Fitbit, Garmin) for development and tests.

``create_sandbox_app()`` returns an ASGI app; run it alone with
``python -m pacekeeper.providers.sandbox --port 8765`` or mount it under ``/sandbox``.
Point the clients at it with ``ProviderSettings.for_sandbox(provider, base_url)`` or the
``PACEKEEPER_PROVIDER_BASE_URL`` environment variable. The client id is
``sandbox-client`` and the secret ``sandbox-secret``.
"""

from ._app import DEFAULT_HISTORY_DAYS, create_sandbox_app
from ._generator import SandboxActivity, SandboxAthlete, activity_on, athlete, streams, summary
from ._state import FAILURE_MODES, Grant, SandboxState

__all__ = [
    "DEFAULT_HISTORY_DAYS",
    "FAILURE_MODES",
    "Grant",
    "SandboxActivity",
    "SandboxAthlete",
    "SandboxState",
    "activity_on",
    "athlete",
    "create_sandbox_app",
    "streams",
    "summary",
]
