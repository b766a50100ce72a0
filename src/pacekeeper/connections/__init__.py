"""Provider connections: the OAuth flow toward Strava, Fitbit and Garmin on top of
``pacekeeper.providers``, encrypted token storage, single-flight refresh (PROV-1..10)."""

from pacekeeper.connections._config import (
    PROVIDERS,
    SANDBOX_PATH,
    ProviderSetup,
    callback_url,
    provider_setup,
)
from pacekeeper.connections._errors import (
    ConnectionProblem,
    NeedsReconnect,
    NotConnected,
    ProviderNotConfigured,
    ProviderTrouble,
    StateRejected,
    TokensUnreadable,
    UnknownProvider,
    explain_provider_error,
)
from pacekeeper.connections._keeper import TokenKeeper
from pacekeeper.connections._models import OAuthStateRow, ProviderConnectionRow, WebhookKeyRow
from pacekeeper.connections._protocols import (
    ConnectionRepository,
    LockedConnection,
    OAuthStateRepository,
)
from pacekeeper.connections._records import (
    ConnectionStatus,
    NewConnection,
    PendingState,
    StoredConnection,
    TokenUpdate,
)
from pacekeeper.connections._service import ConnectionService, ProviderSession
from pacekeeper.connections._sql import SqlConnectionRepository, sha256_hex
from pacekeeper.connections._sql_states import SqlIdempotencyStore, SqlOAuthStateRepository
from pacekeeper.connections._wiring import (
    ConnectionLayer,
    build_connection_layer,
    keyring_for,
    rotate_provider_tokens,
)

__all__ = [
    "PROVIDERS",
    "SANDBOX_PATH",
    "ConnectionLayer",
    "ConnectionProblem",
    "ConnectionRepository",
    "ConnectionService",
    "ConnectionStatus",
    "LockedConnection",
    "NeedsReconnect",
    "NewConnection",
    "NotConnected",
    "OAuthStateRepository",
    "OAuthStateRow",
    "PendingState",
    "ProviderConnectionRow",
    "ProviderNotConfigured",
    "ProviderSession",
    "ProviderSetup",
    "ProviderTrouble",
    "SqlConnectionRepository",
    "SqlIdempotencyStore",
    "SqlOAuthStateRepository",
    "StateRejected",
    "StoredConnection",
    "TokenKeeper",
    "TokenUpdate",
    "TokensUnreadable",
    "UnknownProvider",
    "WebhookKeyRow",
    "build_connection_layer",
    "callback_url",
    "explain_provider_error",
    "keyring_for",
    "provider_setup",
    "rotate_provider_tokens",
    "sha256_hex",
]
