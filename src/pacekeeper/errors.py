"""Pacekeeper's exceptions: one root, and the service errors rendered as HTTP (ERR-1).

Every exception class the service defines derives from ``PacekeeperError``, so a caller
can catch "anything pacekeeper raised" in one clause; mixins (``ValueError``) stay where
code catches them. Each subtree lives beside the code that raises it (its module in
brackets). ``tests/pacekeeper/test_error_tree.py`` walks the package and fails when a
class is missing here or does not derive from the root.

PacekeeperError
 +-- ApiError                     status, code, message -> {"error", "message"} (here)
 |    +-- ValidationFailed        400 validation_error
 |    |    +-- FitnessInputError     a bad fitness query or body [fitness._errors]
 |    |    +-- WorkoutExportError    a workout a file format cannot hold [workouts._export_common]
 |    |    +-- WorkoutInvalid        a workout's shape, naming the part [workouts._steps]
 |    +-- Unauthenticated         401, always with WWW-Authenticate
 |    +-- Forbidden               403
 |    +-- CsrfFailed              403 csrf_failed
 |    +-- Conflict                409
 |    +-- RateLimited             429
 |    +-- NotFound                404, an API key [http.apikeys]
 |    +-- KeyLimitReached         too many API keys [apikeys._service]
 |    +-- QuotaExceeded           429, the key's monthly quota [apikeys._service]
 |    +-- ToolNotFound            404, /a2a/execute [http.a2a]
 |    +-- ActivityNotFound        404 [fitness._errors]
 |    +-- GoalNotFound            404 [fitness.analysis]
 |    +-- WorkoutNotFound         404 [workouts._service]
 |    +-- GearNotFound            404 [fitness._gear]
 |    +-- ImportNotFound          404, a history import [fitness.exports._service]
 |    +-- Busy                    429 busy, a pool's queue is full (imports, password checks) [cpu]
 |    +-- WorkerCrashed           503 worker_crashed, an import worker died [cpu]
 +-- OAuth2Error                  RFC 6749 bodies {"error", "error_description"} [oauth2.errors]
 |    +-- InvalidRequest, InvalidClient, InvalidGrant, UnauthorizedClient,
 |    |   UnsupportedGrantType, UnsupportedResponseType, InvalidScope, InvalidTarget,
 |    |   AccessDenied, InvalidRedirectUri, InvalidClientMetadata, UnsupportedTokenType,
 |    |   SlowDown
 +-- ErrorPage                    shown to the user, never redirected [oauth2._authrequest]
 +-- RedirectError                an OAuth2Error for a verified redirect URI [oauth2._authrequest]
 +-- MetadataDocumentError        unusable client metadata document (CIMD) [oauth2.cimd]
 +-- TokenInvalid                 a JWT failed verification [auth._tokens]
 +-- DuplicateEmailError          409 on registration [db._records]
 +-- KeyCapReached                a new API key would exceed a cap [apikeys._store]
 +-- SlugTaken                    a tenant slug already in use [admin._store]
 +-- MasterKeyError (ValueError)  master key missing or malformed [masterkey]
 +-- CryptoError                  token encryption [crypto._errors]
 |    +-- KeyConfigError, UnknownKeyVersionError, EnvelopeFormatError, DecryptionError
 +-- ProviderError                a provider call [providers._errors]
 |    +-- ProviderConfigError
 |    +-- ProviderAuthError
 |    |    +-- AccessTokenRejected, ReconnectRequired
 |    +-- ProviderRateLimited, ProviderUnavailable, ProviderRequestError,
 |        ProviderResponseError, WebhookRejected
 +-- ConnectionProblem            code + message for people [connections._errors]
 |    +-- UnknownProvider, ProviderNotConfigured, NotConnected, NeedsReconnect,
 |        TokensUnreadable, ProviderTrouble, StateRejected
 +-- ImportRejected               a file not imported, with a reason [fitness.importers]
 +-- _Cut                         internal: where a FIT file's records end or lose their
 |                                framing [fitness.importers._fit_records]
 +-- StreamError (ValueError)     a stream set that cannot be built [fitness.streams]
 +-- BadCursor (ValueError)       a malformed page cursor [fitness._store]
 +-- DuplicateSource              the source is already stored [fitness._store]
 +-- _TooLarge                    internal: a body over the limit [http._body_limit]
 +-- DatabaseUnavailable          start-up waited for the database in vain [db._wait]
 +-- NotARecording (ValueError)   no FIT ride to replay [providers.sandbox._recorded]
 +-- UnsafeXml (ValueError)       an export.xml that declares an entity [fitness.exports._apple]
 +-- _Failed                      internal: an export that cannot be read as a whole
                                  [fitness.exports._service]

Handlers raise ``ApiError``s; the app turns them into ``{"error": code, "message":
text}``. Every 401 carries ``WWW-Authenticate`` (ERR-2); 422 is never used (400).
"""

from __future__ import annotations

from collections.abc import Mapping


class PacekeeperError(Exception):
    """The root of every exception pacekeeper defines (the tree is above)."""


class ApiError(PacekeeperError):
    status = 400
    code = "bad_request"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.headers: dict[str, str] = dict(headers or {})


class ValidationFailed(ApiError):
    status = 400
    code = "validation_error"


class Unauthenticated(ApiError):
    """401; `www_authenticate` is filled in by the principal resolver."""

    status = 401

    def __init__(self, message: str, *, code: str, www_authenticate: str) -> None:
        super().__init__(message, code=code, headers={"WWW-Authenticate": www_authenticate})


class Forbidden(ApiError):
    status = 403
    code = "forbidden"


class CsrfFailed(ApiError):
    status = 403
    code = "csrf_failed"


class Conflict(ApiError):
    status = 409
    code = "conflict"


class RateLimited(ApiError):
    status = 429
    code = "rate_limited"


AUTHENTICATION_REQUIRED = "authentication required"
INVALID_TOKEN = "invalid token"  # noqa: S105 (a message, not a secret)

__all__ = [
    "AUTHENTICATION_REQUIRED",
    "INVALID_TOKEN",
    "ApiError",
    "Conflict",
    "CsrfFailed",
    "Forbidden",
    "PacekeeperError",
    "RateLimited",
    "Unauthenticated",
    "ValidationFailed",
]
