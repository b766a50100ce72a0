"""Authentication: passwords, signing keys, JWTs, cookies, CSRF and the principal."""

from pacekeeper.auth._accounts import (
    EMAIL_PATTERN,
    MAX_PASSWORD_CHARS,
    MIN_PASSWORD_CHARS,
    Accounts,
    normalize_email,
    validate_email,
    validate_password,
)
from pacekeeper.auth._attempts import LOGIN, REGISTER, AttemptLimiter, AttemptLimits
from pacekeeper.auth._cookies import (
    AUTH_COOKIE,
    CSRF_COOKIE,
    clear_session_cookies,
    set_session_cookies,
)
from pacekeeper.auth._csrf import CSRF_HEADER, CSRF_LIFETIME, CsrfService, IssuedCsrf
from pacekeeper.auth._keystore import KeyGenerator, KeyStore, LoadedKey, generate_rsa_key
from pacekeeper.auth._origin import CROSS_SITE_REFUSED, require_same_origin
from pacekeeper.auth._passwords import ConfiguredHasher, PasswordHasher
from pacekeeper.auth._principal import Principal, PrincipalResolver
from pacekeeper.auth._sealing import Sealer, derive_key
from pacekeeper.auth._state_cache import (
    CachedCallerStates,
    CallerStates,
    DirectCallerStates,
    RevokedFamilies,
    TokenRevocations,
)
from pacekeeper.auth._tokens import Claims, IssuedToken, TokenInvalid, TokenService

__all__ = [
    "AUTH_COOKIE",
    "CROSS_SITE_REFUSED",
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "CSRF_LIFETIME",
    "EMAIL_PATTERN",
    "LOGIN",
    "MAX_PASSWORD_CHARS",
    "MIN_PASSWORD_CHARS",
    "REGISTER",
    "Accounts",
    "AttemptLimiter",
    "AttemptLimits",
    "CachedCallerStates",
    "CallerStates",
    "Claims",
    "ConfiguredHasher",
    "CsrfService",
    "DirectCallerStates",
    "IssuedCsrf",
    "IssuedToken",
    "KeyGenerator",
    "KeyStore",
    "LoadedKey",
    "PasswordHasher",
    "Principal",
    "PrincipalResolver",
    "RevokedFamilies",
    "Sealer",
    "TokenInvalid",
    "TokenRevocations",
    "TokenService",
    "clear_session_cookies",
    "derive_key",
    "generate_rsa_key",
    "normalize_email",
    "require_same_origin",
    "set_session_cookies",
    "validate_email",
    "validate_password",
]
